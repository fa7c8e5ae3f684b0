import { createHash, timingSafeEqual } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];

/** Bounded label values: anything outside `allowed` is reported as `other`. */
export function boundedLabel(value: string | undefined, allowed: ReadonlySet<string>): string {
  return value && allowed.has(value) ? value : 'other';
}

/**
 * The Prometheus metrics of one process, on its own registry (no global state, so tests can
 * build several). Names and labels follow Prometheus conventions; every label takes a bounded set
 * of values (routes are Express patterns, codes are vendor codes or `other`).
 */
export function createMetrics(opts: {
  service: string;
  defaultMetrics?: boolean;
  /** how long queue depths read from Redis are reused between scrapes (bounds a scrape's cost) */
  queueGaugeTtlMs?: number;
}) {
  const queueGaugeTtlMs = opts.queueGaugeTtlMs ?? 5_000;
  let queueCounts: { at: number; read: Promise<Array<[string, Record<string, number>]>> } | undefined;
  const readQueueCounts = async (): Promise<Array<[string, Record<string, number>]>> => {
    const out: Array<[string, Record<string, number>]> = [];
    for (const q of queues) {
      const counts = await q
        .getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized')
        .catch(() => null);
      if (counts) out.push([q.name, counts]);
    }
    return out;
  };
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.service });
  if (opts.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'mediagate_process_' });
  const registers = [registry];
  const queues: Queue[] = [];

  const metrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: 'mediagate_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    taskTransitions: new Counter({
      name: 'mediagate_video_task_transitions_total',
      help: 'Video task state transitions by model and new status',
      labelNames: ['model', 'status'] as const,
      registers,
    }),
    taskPickupSeconds: new Histogram({
      name: 'mediagate_video_task_pickup_seconds',
      help: 'Time from task creation to a worker starting it',
      labelNames: ['model'] as const,
      buckets: TASK_BUCKETS,
      registers,
    }),
    taskCompletionSeconds: new Histogram({
      name: 'mediagate_video_task_completion_seconds',
      help: 'Time from task creation to its terminal state',
      labelNames: ['model', 'status'] as const,
      buckets: TASK_BUCKETS,
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'mediagate_upstream_request_duration_seconds',
      help: 'Upstream vendor call latency by vendor, channel, operation and outcome',
      labelNames: ['vendor', 'channel', 'operation', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'mediagate_upstream_errors_total',
      help: 'Upstream vendor call errors by vendor, channel and code',
      labelNames: ['vendor', 'channel', 'code'] as const,
      registers,
    }),
    upstreamLateSlots: new Counter({
      name: 'mediagate_upstream_query_slots_late_total',
      help: 'Upstream query slots left unused because the wait for them ended more than half a slot late, by channel',
      labelNames: ['channel'] as const,
      registers,
    }),
    callbackAttempts: new Counter({
      name: 'mediagate_callback_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    callbackAttemptDuration: new Histogram({
      name: 'mediagate_callback_attempt_duration_seconds',
      help: 'Webhook delivery attempt latency',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    billingMicroUsd: new Counter({
      name: 'mediagate_billing_micro_usd_total',
      help: 'Money charged and refunded, in micro-USD',
      labelNames: ['kind'] as const,
      registers,
    }),
    billingOperations: new Counter({
      name: 'mediagate_billing_operations_total',
      help: 'Charges and refunds applied',
      labelNames: ['kind'] as const,
      registers,
    }),
    imageSettlements: new Counter({
      name: 'mediagate_image_call_settlements_total',
      help: 'Image call settlements by outcome: settled (by the call), failed (the call could not settle it; the sweep will), swept (refunded in full by the reconciler), late (the call found it already swept)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    mediaCopies: new Counter({
      name: 'mediagate_media_copies_total',
      help: 'Copies of vendor videos into storage by outcome: stored, retry (will be tried again), failed (gave up: too large, wrong type), expired (the vendor link died first)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    mediaCopySeconds: new Histogram({
      name: 'mediagate_media_copy_seconds',
      help: 'Time to copy one video from the vendor into storage (successful copies)',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    mediaStoredBytes: new Gauge({
      name: 'mediagate_media_stored_bytes',
      help: 'Bytes of media in storage (videos and thumbnails), as of the reconciler’s last sweep',
      registers,
    }),
    mediaStoredObjects: new Gauge({
      name: 'mediagate_media_stored_objects',
      help: 'Objects in storage (videos and thumbnails), as of the reconciler’s last sweep',
      registers,
    }),
    mediaExpired: new Counter({
      name: 'mediagate_media_expired_total',
      help: 'Stored videos deleted at the end of retention',
      registers,
    }),
    queueJobs: new Gauge({
      name: 'mediagate_queue_jobs',
      help: 'Jobs per queue and state, read from Redis at scrape time (at most every few seconds)',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        // one read of Redis per queueGaugeTtlMs, shared by every scrape in between (and by
        // concurrent ones), however often /metrics is asked
        if (!queueCounts || Date.now() - queueCounts.at >= queueGaugeTtlMs) {
          queueCounts = { at: Date.now(), read: readQueueCounts() };
        }
        const counts = await queueCounts.read;
        this.reset();
        for (const [queue, byState] of counts) {
          for (const [state, n] of Object.entries(byState)) this.set({ queue, state }, n);
        }
      },
    }),
    /** Report the depth of these queues at every scrape. */
    watchQueues(...qs: Queue[]) {
      queues.push(...qs);
    },
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Whether an Authorization header carries `Bearer <token>` (compared in constant time), for
 * /metrics behind METRICS_TOKEN.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
