import { UpstreamError } from '@mediagate/shared/errors';
import { boundedLabel, type Metrics } from '@mediagate/shared/metrics';
import { inSpan } from '@mediagate/shared/tracing';
import type { DashScopeVideoClient, UpstreamChannel } from '@mediagate/shared/upstream';

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
