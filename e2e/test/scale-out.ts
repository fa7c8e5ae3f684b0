import { headersOf, processGroup, type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { Webhook } from 'standardwebhooks';
import { checkNothingLost, createVideos, submittedCount } from './drills/checks';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

/** Where the stack's Redis and Postgres are reached, for one run of the scale-out proof. */
export interface ScaleOutServices {
  /** what the run goes through, for its report line */
  label: string;
  env?: Record<string, string>;
  databaseUrl?: (direct: string) => string;
  stop?: () => Promise<void>;
}

/**
 * The scale-out proof: 2 API processes, 3 video workers and 2 callback dispatchers carry
 * SCALE_TASKS (default `defaultTasks`, 1,000) tasks; one video worker gets SIGTERM mid-run. Every task must
 * succeed, the upstream must see exactly one submission per task, and the receiver each
 * webhook-id (once, as every delivery here is answered 200). `services` says which Redis and
 * Postgres the processes use (the test servers by default).
 */
export function scaleOutSuite(services: () => Promise<ScaleOutServices>, defaultTasks = 1_000): void {
  const N = Number(process.env.SCALE_TASKS ?? defaultTasks);

  let stack: Stack;
  let rx: Receiver;
  let secondApi: string;
  let run: ScaleOutServices;
  const extra = processGroup({});

  beforeAll(async () => {
    run = await services();
    stack = await startStack({
      databaseUrl: run.databaseUrl,
      videoWorkers: 3,
      callbackWorkers: 2,
      env: {
        SSRF_ALLOW_CIDRS: '127.0.0.0/8',
        VIDEO_MAX_ACTIVE_TASKS: '1000000',
        UPSTREAM_SUBMIT_RPS: '0',
        UPSTREAM_POLL_QPS: '0',
        VIDEO_POLL_INTERVAL_MS: '100',
        // The stopped worker gets SIGTERM and hands its jobs back; no run waits on a lock expiring.
        // Locks of 2 s (the stack's, for SIGKILL drills) can lapse on a loaded machine, and a job
        // whose lock lapsed mid-submit is failed rather than submitted twice.
        VIDEO_LOCK_DURATION_MS: '10000',
        CALLBACK_LOCK_DURATION_MS: '10000',
        LOG_LEVEL: 'warn',
        ...run.env,
      },
      simEnv: { SIM_VIDEO_PENDING_MS: '100', SIM_VIDEO_RUNNING_MS: '300' },
    });
    const group = processGroup(stack.env);
    const api2 = await group.start('api-2', 'api');
    extra.procs.push(...group.procs);
    secondApi = `http://127.0.0.1:${api2.port}`;
    rx = await startReceiver();
  });
  afterAll(async () => {
    await extra.stopAll();
    await rx?.close();
    await stack?.stop();
    await run?.stop?.();
  });

  it(`${N} tasks through 2 APIs, 3 video workers and 2 dispatchers, with a worker stopped mid-run`, async () => {
    const startedAt = Date.now();
    const key = stack.newKey(N);
    const apis = [stack.apiUrl, secondApi];
    const body = JSON.stringify({
      ...VIDEO_REQUEST,
      metadata: { ...VIDEO_REQUEST.metadata, callback_url: `${rx.url}/hook` },
    });
    const creating = createVideos({ urls: apis, key, body, n: N, batch: 20 });

    // stop one video worker gracefully once a third of the tasks reached the upstream
    await waitFor(async () => (await submittedCount(stack.pool)) >= N / 3, {
      timeoutMs: 300_000,
      what: 'a third of the tasks submitted',
    });
    const victim = stack.workers[0]!;
    expect(await victim.stop('SIGTERM')).toBe(0);
    const ids = await creating;

    await waitFor(
      async () => {
        const { rows } = await stack.pool.query(
          `select count(*)::int as n from tasks where status = 'succeeded'`,
        );
        return rows[0].n === N;
      },
      { timeoutMs: 400_000, intervalMs: 250, what: 'every task to succeed' },
    ).catch(async (err: Error) => {
      const { rows } = await stack.pool.query(
        `select status, (upstream_task_id is not null) as submitted, count(*)::int as n
           from tasks group by 1, 2 order by 1, 2`,
      );
      const logs = [...stack.workers, ...extra.procs, stack.apiProcess]
        .map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`)
        .join('\n');
      throw new Error(`${err.message}\ntasks: ${JSON.stringify(rows)}\n${logs}`);
    });
    await waitFor(() => new Set(rx.received.map((r) => r.headers['webhook-id'])).size >= N, {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: 'a callback per task',
    });

    const { rows: statuses } = await stack.pool.query(
      'select status, count(*)::int as n from tasks group by status',
    );
    expect(statuses).toEqual([{ status: 'succeeded', n: N }]);
    const sim = await stack.sim('GET', '/stats');
    expect(sim.video.submitted).toBe(N);
    const books = await checkNothingLost(stack.pool, sim.video.submitted);
    expect(books).toMatchObject({
      stuck: 0,
      doubleCharges: 0,
      doubleRefunds: 0,
      extraSubmissions: 0,
      unknownSubmissions: 0,
      booksOff: 0,
    });

    // every delivery verifies, carries one task, and each webhook-id maps to one task
    const secret = (await stack.api('GET', '/v1/webhooks/secret', key)).body.secret as string;
    const byId = new Map<string, string>();
    for (const r of rx.received) {
      const event = new Webhook(secret).verify(r.body, headersOf(r)) as {
        type: string;
        data: { id: string };
      };
      expect(event.type).toBe('video.succeeded');
      const webhookId = String(r.headers['webhook-id']);
      expect(byId.get(webhookId) ?? event.data.id).toBe(event.data.id);
      byId.set(webhookId, event.data.id);
    }
    expect(new Set(byId.values())).toEqual(new Set(ids));
    const duplicates = rx.received.length - byId.size;
    process.stderr.write(
      `[scale-out] ${run.label}: ${N} tasks in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, ` +
        `${rx.received.length} deliveries, ${duplicates} repeated (retries), nothing lost\n`,
    );
  });
}
