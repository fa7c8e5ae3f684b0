import { createMetrics } from '@mediagate/shared/metrics';
import { getTask } from '@mediagate/shared/tasks';
import { type RunningSim, startUpstreamSim, waitFor } from '@mediagate/shared/testing';
import { startWorkerHarness, type WorkerHarness } from '../../test/harness';

let sim: RunningSim;
let h: WorkerHarness;
const metrics = createMetrics({ service: 'worker-test', defaultMetrics: false });

beforeAll(async () => {
  sim = await startUpstreamSim({ SIM_VIDEO_PENDING_MS: '20', SIM_VIDEO_RUNNING_MS: '40' });
  h = await startWorkerHarness(sim);
  h.startWorker({ metrics });
});
afterAll(async () => {
  await h?.close();
  await sim?.stop();
});

/** The value of the sample `name` whose labels include `labels` (label order does not matter). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const finished = (id: string) =>
  waitFor(async () => {
    const row = await getTask(h.database.db, id);
    return row?.status === 'succeeded' || row?.status === 'failed' ? row : null;
  });

describe('video worker metrics', () => {
  it('counts transitions, their timings, upstream calls and refunds', async () => {
    await finished(await h.createTask());
    await sim.fault({ api: 'video.submit', status: 400, code: 'InvalidParameter', count: 1 });
    await finished(await h.createTask());
    const text = await metrics.registry.metrics();
    const model = 'wan2.6-i2v-flash-5s-720p';
    expect(sample(text, 'mediagate_video_task_transitions_total', { model, status: 'processing' })).toBe(2);
    expect(sample(text, 'mediagate_video_task_transitions_total', { model, status: 'succeeded' })).toBe(1);
    expect(sample(text, 'mediagate_video_task_transitions_total', { model, status: 'failed' })).toBe(1);
    expect(sample(text, 'mediagate_video_task_pickup_seconds_count', { model })).toBe(2);
    expect(
      sample(text, 'mediagate_video_task_completion_seconds_count', { model, status: 'succeeded' }),
    ).toBe(1);
    expect(
      sample(text, 'mediagate_upstream_request_duration_seconds_count', {
        operation: 'submit',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(
      sample(text, 'mediagate_upstream_request_duration_seconds_count', {
        operation: 'submit',
        outcome: 'http_4xx',
      }),
    ).toBe(1);
    expect(sample(text, 'mediagate_upstream_errors_total', { code: 'InvalidParameter' })).toBe(1);
    expect(sample(text, 'mediagate_billing_micro_usd_total', { kind: 'refund' })).toBe(250_000);
  });
});
