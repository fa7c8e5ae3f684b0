import { boundedLabel, createMetrics } from './metrics';

describe('metrics', () => {
  it('exposes the gateway metrics in Prometheus text format, per registry', async () => {
    const a = createMetrics({ service: 'api', defaultMetrics: false });
    const b = createMetrics({ service: 'worker', defaultMetrics: false });
    a.taskTransitions.inc({ model: 'wan2.6-i2v-flash-5s-720p', status: 'succeeded' });
    a.httpRequestDuration.observe({ method: 'GET', route: '/v1/videos/:taskId', status_code: '200' }, 0.003);
    const text = await a.registry.metrics();
    expect(text).toContain(
      'mediagate_video_task_transitions_total{model="wan2.6-i2v-flash-5s-720p",status="succeeded",service="api"} 1',
    );
    expect(text).toContain('mediagate_http_request_duration_seconds_bucket');
    expect(await b.registry.metrics()).not.toContain('status="succeeded"');
  });

  it('reports the top-up outcomes an alert reads at 0 before the first one, so the first is an increase', async () => {
    const text = await createMetrics({ service: 'api', defaultMetrics: false }).registry.metrics();
    for (const provider of ['alipay', 'wechat']) {
      expect(text).toContain(`mediagate_topup_refunds_total{provider="${provider}",outcome="held",service="api"} 0`);
      expect(text).toContain(
        `mediagate_topup_orders_total{provider="${provider}",outcome="amount_mismatch",service="api"} 0`,
      );
    }
  });

  it('bounds label values', () => {
    const allowed = new Set(['Throttling', 'InternalError']);
    expect(boundedLabel('Throttling', allowed)).toBe('Throttling');
    expect(boundedLabel('made-up-code-123', allowed)).toBe('other');
    expect(boundedLabel(undefined, allowed)).toBe('other');
  });
});
