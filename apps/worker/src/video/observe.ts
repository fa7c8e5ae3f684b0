import {
  boundedLabel,
  type DashScopeVideoClient,
  inSpan,
  type Metrics,
  type TaskRow,
  type UpstreamChannel,
  UpstreamError,
} from '@mediagate/shared';

const seconds = (from: Date, to: Date | null) =>
  Math.max(0, ((to ?? new Date()).getTime() - from.getTime()) / 1000);

/** Vendor codes worth a label of their own; anything else is `other`. */
const KNOWN_CODES = new Set([
  'InvalidParameter',
  'InvalidURL',
  'DataInspectionFailed',
  'IPInfringementSuspect',
  'Arrearage',
  'InvalidApiKey',
  'AccessDenied',
  'Throttling',
  'Throttling.RateQuota',
  'Throttling.AllocationQuota',
  'InternalError',
  'ServiceUnavailable',
  'connect',
  'timeout',
  'reset',
  'too_large',
]);

/** Records a task transition this process made: its count, and pickup or completion time. */
export function observeTransition(metrics: Metrics | undefined, row: TaskRow | null): void {
  if (!metrics || !row) return;
  metrics.taskTransitions.inc({ model: row.model, status: row.status });
  if (row.status === 'processing' && row.startedAt) {
    metrics.taskPickupSeconds.observe({ model: row.model }, seconds(row.createdAt, row.startedAt));
  }
  if (row.status === 'succeeded' || row.status === 'failed') {
    metrics.taskCompletionSeconds.observe(
      { model: row.model, status: row.status },
      seconds(row.createdAt, row.completedAt),
    );
  }
  if (row.status === 'failed' && row.priceMicroUsd > 0) {
    metrics.billingMicroUsd.inc({ kind: 'refund' }, row.priceMicroUsd);
    metrics.billingOperations.inc({ kind: 'refund' });
  }
}

type VideoClient = Pick<DashScopeVideoClient, 'submit' | 'query' | 'cancel'>;

/** The video client with every call timed and every failure counted, by channel and operation. */
export function observedVideoClient(client: VideoClient, metrics: Metrics | undefined): VideoClient {
  if (!metrics) return client;
  const timed = async <T>(
    operation: string,
    channel: UpstreamChannel,
    call: () => Promise<T>,
  ): Promise<T> => {
    const end = metrics.upstreamDuration.startTimer({
      vendor: 'dashscope',
      channel: channel.name,
      operation,
    });
    try {
      const result = await inSpan(
        `upstream.${operation}`,
        { 'mediagate.vendor': 'dashscope', 'mediagate.channel': channel.name },
        call,
      );
      end({ outcome: 'ok' });
      return result;
    } catch (err) {
      end({
        outcome:
          err instanceof UpstreamError && err.details.status
            ? `http_${Math.floor(err.details.status / 100)}xx`
            : 'error',
      });
      const code = err instanceof UpstreamError ? err.details.code : undefined;
      metrics.upstreamErrors.inc({
        vendor: 'dashscope',
        channel: channel.name,
        code: boundedLabel(code, KNOWN_CODES),
      });
      throw err;
    }
  };
  return {
    submit: (channel, job) => timed('submit', channel, () => client.submit(channel, job)),
    query: (channel, taskId) => timed('query', channel, () => client.query(channel, taskId)),
    cancel: (channel, taskId) => timed('cancel', channel, () => client.cancel(channel, taskId)),
  };
}
