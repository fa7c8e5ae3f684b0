import { createHash, timingSafeEqual } from 'node:crypto';
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
  /** how long fleet facts read from Redis and Postgres are reused between scrapes (bounds a scrape's cost) */
  fleetTtlMs?: number;
}) {
  const fleetTtlMs = opts.fleetTtlMs ?? 5_000;
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.service });
  if (opts.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'mediagate_process_' });
  const registers = [registry];

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
      help: 'Upstream query slots left unused because the query would have gone more than the tolerance (50 ms) after its slot, by channel',
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
    submitsUnresolved: new Counter({
      name: 'mediagate_video_submits_unresolved_total',
      help: 'Video submits whose outcome at the vendor is unknown, so the task failed and was refunded: interrupted (the process died mid-submit) or uncertain (the vendor did not answer in time); the vendor may bill for each',
      labelNames: ['reason'] as const,
      registers,
    }),
    taskOutcomes: new Counter({
      name: 'mediagate_video_task_outcomes_total',
      help: 'Finished video tasks by outcome: succeeded, failed_service (the gateway or its vendor failed it: timeout, vendor errors, interrupted submits) or failed_client (canceled, input refused by the vendor)',
      labelNames: ['model', 'outcome'] as const,
      registers,
    }),
    callbackDeliverySeconds: new Histogram({
      name: 'mediagate_callback_delivery_seconds',
      help: 'Time from a task event to its callback delivered (the endpoint answered 2xx), retries included',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
      registers,
    }),
    reconcilerActions: new Counter({
      name: 'mediagate_reconciler_actions_total',
      help: 'What the reconciler did: requeued (video jobs lost or dead), timed_out (tasks past their deadline), callbacks_requeued, image_calls_settled (refunded in full), topups_credited, topups_expired, media_requeued, media_given_up, media_expired',
      labelNames: ['action'] as const,
      registers,
    }),
    reconcilerSweeps: new Counter({
      name: 'mediagate_reconciler_sweeps_total',
      help: 'Reconciler passes by outcome: done, skipped (another replica held the lock), failed',
      labelNames: ['outcome'] as const,
      registers,
    }),
    reconcilerLastSweep: new Gauge({
      name: 'mediagate_reconciler_last_sweep_timestamp_seconds',
      help: 'Unix time this replica last finished a reconciler pass (take the max over the fleet)',
      registers,
    }),
    workerRoles: new Gauge({
      name: 'mediagate_worker_role',
      help: 'Roles this worker process runs (1 per role)',
      labelNames: ['role'] as const,
      registers,
    }),
    topUpOrders: new Counter({
      name: 'mediagate_topup_orders_total',
      help: 'QR top-up orders by provider and outcome: created, credited, expired, closed, amount_mismatch (paid with another amount, held for an operator)',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    }),
    topUpRefunds: new Counter({
      name: 'mediagate_topup_refunds_total',
      help: 'QR top-up refunds that ended, by provider and outcome: succeeded (the refunded share taken back), failed (refused by the provider), held (reported for more than is left of the payment: nothing debited, waiting for an operator)',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    }),
    paymentNotifications: new Counter({
      name: 'mediagate_payment_notifications_total',
      help: "Payment providers' notifications by provider and outcome: accepted, refused (signature, merchant, payload, unknown order, amount; see mediagate_payment_notifications_refused_total), error (not processed, the provider sends it again)",
      labelNames: ['provider', 'outcome'] as const,
      registers,
    }),
    paymentNotificationsRefused: new Counter({
      name: 'mediagate_payment_notifications_refused_total',
      help: 'Payment notifications refused, by provider and reason: signature, merchant, payload, unknown_order, amount',
      labelNames: ['provider', 'reason'] as const,
      registers,
    }),
    ledgerChecked: new Counter({
      name: 'mediagate_ledger_checked_accounts_total',
      help: 'Accounts whose balance the ledger check compared with their ledger',
      registers,
    }),
    /** Report the breaker state of these channel pools at every scrape (a per-process fact). */
    watchChannels(pool: { status(): Array<{ name: string; vendor: string; state: string }> }) {
      pools.push(pool);
    },
    /**
     * Fleet-wide facts (queues in Redis; tasks, deliveries, copies and the ledger check in
     * Postgres), reported only while `source.leading()` says this process is the fleet's reporter,
     * so a sum over every process counts each once. Read at most every `ttlMs`, however often
     * /metrics is asked.
     */
    reportFleet(source: FleetSource) {
      fleet = source;
    },
  };
  // Every provider's series of the outcomes an alert reads start at 0, so the first event is an
  // increase (a series that first appears at 1 shows none to increase()).
  // the QR providers (payments' QR_PROVIDERS, which this layer may not import)
  for (const provider of ['alipay', 'wechat']) {
    for (const outcome of ['created', 'credited', 'expired', 'closed', 'cancelled', 'amount_mismatch', 'refunded_uncredited']) {
      metrics.topUpOrders.inc({ provider, outcome }, 0);
    }
    for (const outcome of ['succeeded', 'failed', 'held']) metrics.topUpRefunds.inc({ provider, outcome }, 0);
  }
  const fleetGauge = (
    name: string,
    help: string,
    labelNames: string[],
    pick: (f: FleetFacts) => Array<[Record<string, string>, number]>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        const facts = await readFleet();
        if (!facts) return;
        for (const [labels, value] of pick(facts)) this.set(labels, value);
      },
    });
  let fleet: FleetSource | undefined;
  const pools: Array<{ status(): Array<{ name: string; vendor: string; state: string }> }> = [];
  new Gauge({
    name: 'mediagate_upstream_channel_state',
    help: "Each upstream channel's breaker in this process: 1 for its current state (closed, open, half_open, throttled)",
    labelNames: ['vendor', 'channel', 'state'],
    registers,
    collect() {
      this.reset();
      for (const pool of pools) {
        for (const c of pool.status()) {
          for (const state of ['closed', 'open', 'half_open', 'throttled']) {
            this.set({ vendor: c.vendor, channel: c.name, state }, c.state === state ? 1 : 0);
          }
        }
      }
    },
  });
  let fleetRead: { at: number; read: Promise<FleetFacts | null> } | undefined;
  const readFleet = (): Promise<FleetFacts | null> => {
    const source = fleet;
    if (!source) return Promise.resolve(null);
    if (!fleetRead || Date.now() - fleetRead.at >= fleetTtlMs) {
      fleetRead = {
        at: Date.now(),
        read: (async () => ((await source.leading()) ? source.read() : null))().catch(() => null),
      };
    }
    return fleetRead.read;
  };
  new Gauge({
    name: 'mediagate_fleet_reporter',
    help: 'Whether this process reports the fleet-wide gauges (1 on exactly one process of the fleet: a reconciler)',
    registers,
    async collect() {
      this.reset();
      if (fleet) this.set((await readFleet()) ? 1 : 0);
    },
  });
  fleetGauge(
    'mediagate_queue_jobs',
    'Jobs per queue and state, read from Redis (reported once for the fleet)',
    ['queue', 'state'],
    (f) =>
      f.queues.flatMap((q) =>
        Object.entries(q.counts).map(([state, n]): [Record<string, string>, number] => [
          { queue: q.name, state },
          n,
        ]),
      ),
  );
  fleetGauge(
    'mediagate_queue_oldest_job_age_seconds',
    'Age of the oldest job of a queue in a state: waiting (ready to run: in the wait list or past its delay), active (running since)',
    ['queue', 'state'],
    (f) =>
      f.queues.flatMap((q) => [
        [{ queue: q.name, state: 'waiting' }, q.oldestWaitingSeconds] as [Record<string, string>, number],
        [{ queue: q.name, state: 'active' }, q.oldestActiveSeconds] as [Record<string, string>, number],
      ]),
  );
  fleetGauge(
    'mediagate_video_tasks',
    'Unfinished video tasks by state (pending, processing), from Postgres',
    ['state'],
    (f) => f.tasks.map((t) => [{ state: t.state }, t.count]),
  );
  fleetGauge(
    'mediagate_video_task_oldest_age_seconds',
    'Age of the oldest unfinished video task by state, from Postgres',
    ['state'],
    (f) => f.tasks.map((t) => [{ state: t.state }, t.oldestSeconds]),
  );
  fleetGauge(
    'mediagate_video_tasks_stuck',
    'Unfinished video tasks past their deadline (the reconciler should have timed them out), by state',
    ['state'],
    (f) => f.tasks.map((t) => [{ state: t.state }, t.overdue]),
  );
  fleetGauge(
    'mediagate_callback_backlog',
    'Callback deliveries not delivered yet: pending (every one waiting, retries included) and due (their next attempt is now or past)',
    ['state'],
    (f) => [
      [{ state: 'pending' }, f.callbacks.pending],
      [{ state: 'due' }, f.callbacks.due],
    ],
  );
  fleetGauge(
    'mediagate_callback_backlog_oldest_age_seconds',
    'Age of the oldest callback delivery not delivered yet (since its event)',
    [],
    (f) => [[{}, f.callbacks.oldestSeconds]],
  );
  fleetGauge(
    'mediagate_media_copy_backlog',
    'Videos not copied into storage yet, by state: pending (never tried or trying), failed (the last attempt failed; retried while the vendor link lives)',
    ['state'],
    (f) => f.media.map((m) => [{ state: m.state }, m.count]),
  );
  fleetGauge(
    'mediagate_media_copy_backlog_oldest_age_seconds',
    'Age of the oldest video not copied into storage yet (since its task succeeded)',
    [],
    (f) => [[{}, Math.max(0, ...f.media.map((m) => m.oldestSeconds))]],
  );
  fleetGauge(
    'mediagate_webhook_endpoints_disabled',
    'Callback endpoints disabled for failing every delivery longer than WEBHOOK_ENDPOINT_DISABLE_AFTER (their deliveries are held until their owner enables them)',
    [],
    (f) => [[{}, f.webhookEndpoints.disabled]],
  );
  fleetGauge(
    'mediagate_ledger_mismatched_accounts',
    'Accounts whose balance differs from the sum of their ledger, as of the ledger check (expected 0)',
    [],
    (f) => [[{}, f.ledger.mismatched]],
  );
  fleetGauge(
    'mediagate_ledger_check_timestamp_seconds',
    'Unix time of the last ledger check pass',
    [],
    (f) => (f.ledger.checkedAt ? [[{}, f.ledger.checkedAt.getTime() / 1000]] : []),
  );
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** One queue as the fleet gauges report it. */
export interface QueueFacts {
  name: string;
  /** jobs by BullMQ state (waiting, active, delayed, failed, completed, prioritized) */
  counts: Record<string, number>;
  oldestWaitingSeconds: number;
  oldestActiveSeconds: number;
}

/** What the fleet gauges report: read by the fleet's one reporter. */
export interface FleetFacts {
  queues: QueueFacts[];
  tasks: Array<{ state: string; count: number; oldestSeconds: number; overdue: number }>;
  callbacks: { pending: number; due: number; oldestSeconds: number };
  media: Array<{ state: string; count: number; oldestSeconds: number }>;
  ledger: { mismatched: number; checkedAt: Date | null };
  /** callback endpoints disabled for failing every delivery (their deliveries are held) */
  webhookEndpoints: { disabled: number };
}

export interface FleetSource {
  /** whether this process is the fleet's reporter now */
  leading(): Promise<boolean>;
  read(): Promise<FleetFacts>;
}

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
