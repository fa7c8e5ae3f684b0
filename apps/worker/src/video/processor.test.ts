import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { enqueueVideoTask, JOB_CATALOG } from '@mediagate/shared/queue';
import { getTask, markSubmitStarted, recordUpstreamTask, startTask } from '@mediagate/shared/tasks';
import { freePort, submitSimVideo, waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';

let sim: Sim;
let h: WorkerHarness;

beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  h.startWorker();
});
afterAll(async () => {
  await h?.close();
  await sim?.stop();
});
beforeEach(async () => {
  await sim.control('POST', '/reset');
});
afterEach(async () => {
  expect(await findLedgerMismatches(h.database.db)).toEqual([]);
});

const settled = (id: string) =>
  waitFor(
    async () => {
      const row = await getTask(h.database.db, id);
      return row && (row.status === 'succeeded' || row.status === 'failed') ? row : null;
    },
    { what: `task ${id} to finish`, timeoutMs: 20_000 },
  );
/** the job `id` once it has failed (BullMQ's failed state) */
const failedJob = (id: string) =>
  waitFor(async () => ((await h.queue.getJobState(id)) === 'failed' ? h.queue.getJob(id) : null), {
    what: `job ${id} to fail`,
  });
const balance = async () => (await getAccount(h.database.db, h.accountId))!.balanceMicroUsd;

describe('video processor against the simulator', () => {
  it('runs a task pending → processing → succeeded with the upstream video', async () => {
    const id = await h.createTask();
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    expect(row.videoUrl).toMatch(new RegExp(`^${sim.url}/media/videos/.+\\.mp4$`));
    expect(row.upstreamTaskId).toBeTruthy();
    expect(row.upstreamChannel).toBe('sim');
    expect(row.startedAt).toBeTruthy();
    expect(row.completedAt).toBeTruthy();
    expect(row.progress).toBe(100);
    expect(row.usage).toMatchObject({ duration: 5 });
    expect((await sim.stats()).video.submitted).toBe(1);
    const video = await fetch(row.videoUrl!);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toMatch(/video\/mp4/);
  });

  it('sends the DashScope body the model maps to', async () => {
    const id = await h.createTask({ model: 'wan2.5-i2v-flash-10s-1080p' });
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    expect((await sim.stats()).video.submitted).toBe(1);
    // what the simulator received: the model's upstream name, the prompt, its duration and resolution
    const sent = await sim.control('GET', `/tasks/${row.upstreamTaskId}`);
    expect(sent).toMatchObject({
      model: 'wan2.5-i2v-preview',
      prompt: 'a cat',
      parameters: { resolution: '1080P', duration: 10, audio: true },
    });
    // the simulator's usage echoes what it was sent: the model's duration, resolution and sound
    expect(row.usage).toMatchObject({ duration: 10, SR: 1080, audio: true });
  });

  /** Runs a task whose row `breakRow` spoils after creation; it must fail as `code`, refunded, unsent. */
  async function failsWithoutSubmitting(breakRow: string, code: string): Promise<string> {
    const before = await balance();
    const id = await h.createTask({ enqueue: false });
    await h.database.pool.query(breakRow, [id]);
    await enqueueVideoTask(h.queue, { taskId: id, requestId: `req-${id}` });
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe(code);
    expect(row.submitStartedAt).toBeNull();
    expect((await sim.stats()).video.submitted).toBe(0);
    expect((await balance()) - before).toBe(0);
    return id;
  }

  it('fails a task whose model has left the catalog as model_unavailable, refunded, without submitting', async () => {
    await failsWithoutSubmitting(
      `update tasks set model = 'wan-retired-5s-720p' where id = $1`,
      'model_unavailable',
    );
  });

  it('fails a task whose stored request cannot be read, refunded, without submitting, and its job for good', async () => {
    const id = await failsWithoutSubmitting(
      `update tasks set metadata = '{"input": "a string"}' where id = $1`,
      'invalid_task',
    );
    // UnrecoverableError: failed on its first attempt, none of its eight attempts retried
    const job = await failedJob(id);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/stored request cannot be read/);
  });

  it('fails a job whose payload is malformed on its first attempt, without retrying it', async () => {
    const spec = JOB_CATALOG['video.run'];
    await h.queue.add('video.run', { task: 'no task id' }, { ...spec.options, jobId: 'malformed-payload' });
    const job = await failedJob('malformed-payload');
    expect(spec.options.attempts).toBeGreaterThan(1);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/malformed video.run payload/);
  });

  it('ends failed with the upstream code when the upstream task fails, and refunds it', async () => {
    await sim.outcome({
      outcome: 'FAILED',
      code: 'DataInspectionFailed',
      message: 'Input data may contain inappropriate content.',
      count: 1,
    });
    const before = await balance();
    const id = await h.createTask();
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('DataInspectionFailed');
    expect(row.errorMessage).toMatch(/inappropriate/);
    expect((await balance()) - before).toBe(0); // charged 0.25 at creation, refunded in full
  });

  it('ends failed on an upstream CANCELED', async () => {
    await sim.outcome({ outcome: 'CANCELED', count: 1 });
    const row = await settled(await h.createTask());
    expect(row.status).toBe('failed');
    expect(row.errorCode).toMatch(/cancel/i);
  });

  it('does not retry a 4xx on submit', async () => {
    await sim.fault({
      api: 'video.submit',
      status: 400,
      code: 'InvalidParameter',
      message: 'bad image',
      count: 1,
    });
    const row = await settled(await h.createTask());
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('InvalidParameter');
    expect((await sim.stats()).video.submitted).toBe(0);
  });

  it.each([
    [429, 'Throttling.RateQuota'],
    [500, 'InternalError'],
    [503, 'ServiceUnavailable'],
  ])('retries a %i on submit with backoff, then succeeds with one submission', async (status, code) => {
    await sim.fault({ api: 'video.submit', status, code, count: 2 });
    const row = await settled(await h.createTask());
    expect(row.status).toBe('succeeded');
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('retries failed polls and still succeeds', async () => {
    await sim.fault({ api: 'video.query', status: 500, code: 'InternalError', count: 3 });
    const row = await settled(await h.createTask());
    expect(row.status).toBe('succeeded');
  });

  it('retries a submit whose connection was refused until the upstream answers', async () => {
    const port = await freePort();
    const other = await startWorkerHarness({ url: `http://127.0.0.1:${port}` });
    let late: Sim | undefined;
    try {
      other.startWorker();
      const id = await other.createTask();
      const job = await waitFor(
        async () => {
          const j = await other.queue.getJob(id);
          return j && (j.data.upstreamRetries ?? 0) >= 2 ? j : null;
        },
        { what: 'two refused submits' },
      );
      expect(job).toBeTruthy();
      const mid = await getTask(other.database.db, id);
      expect(mid).toMatchObject({ status: 'processing', submitStartedAt: null, upstreamTaskId: null });
      late = await startSim({}, port);
      const row = await waitFor(async () => {
        const r = await getTask(other.database.db, id);
        return r?.status === 'succeeded' ? r : null;
      });
      expect(row.upstreamTaskId).toBeTruthy();
      expect((await late.stats()).video.submitted).toBe(1);
    } finally {
      await other.close();
      await late?.stop();
    }
  });

  it('keeps trying to store the upstream id after a submit when Postgres refuses the write', async () => {
    const pool = h.database.pool;
    // a sequence counts the refusals: unlike a table row, nextval survives the refused statement
    await pool.query(`
      drop sequence if exists upstream_id_writes;
      create sequence upstream_id_writes;
      create or replace function refuse_upstream_id() returns trigger language plpgsql as $$
      begin
        if new.upstream_task_id is not null and old.upstream_task_id is null
           and nextval('upstream_id_writes') <= 2 then
          raise exception 'refused for the test';
        end if;
        return new;
      end $$;
      create or replace trigger refuse_upstream_id before update on tasks
        for each row execute function refuse_upstream_id();`);
    try {
      const id = await h.createTask();
      const row = await settled(id);
      expect(row.status).toBe('succeeded');
      expect((await pool.query('select last_value from upstream_id_writes')).rows[0].last_value).toBe('3');
      expect((await sim.stats()).video.submitted).toBe(1);
    } finally {
      await pool.query('drop trigger refuse_upstream_id on tasks');
    }
  });

  it('starts a pending task in the statement that marks its submit', async () => {
    const id = await h.createTask();
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    // one write set both: the task was never processing without a submit on its way
    expect(row.startedAt).toEqual(row.submitStartedAt);
    expect(row.upstreamChannel).toBe('sim');
  });

  it('submits once a task that another run started without marking its submit', async () => {
    const id = await h.createTask({ enqueue: false });
    await startTask(h.database.db, id);
    const started = (await getTask(h.database.db, id))!.startedAt!;
    await enqueueVideoTask(h.queue, { taskId: id });
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    expect(row.startedAt).toEqual(started);
    expect(row.submitStartedAt!.getTime()).toBeGreaterThanOrEqual(started.getTime());
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('resumes a task that already has an upstream id without submitting again', async () => {
    const id = await h.createTask({ enqueue: false });
    const upstreamId = await submitSimVideo(sim.url);
    await startTask(h.database.db, id);
    await markSubmitStarted(h.database.db, id, 'sim');
    await recordUpstreamTask(h.database.db, id, upstreamId);
    await enqueueVideoTask(h.queue, { taskId: id });
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    expect(row.upstreamTaskId).toBe(upstreamId);
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('fails (and refunds) a task whose submit was interrupted, without submitting again', async () => {
    const before = await balance();
    const id = await h.createTask({ enqueue: false });
    await startTask(h.database.db, id);
    await markSubmitStarted(h.database.db, id, 'sim');
    await enqueueVideoTask(h.queue, { taskId: id });
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('upstream_submit_interrupted');
    expect((await sim.stats()).video.submitted).toBe(0);
    expect(await balance()).toBe(before);
  });

  it('fails a task the upstream does not know (UNKNOWN)', async () => {
    const id = await h.createTask({ enqueue: false });
    await startTask(h.database.db, id);
    await markSubmitStarted(h.database.db, id, 'sim');
    await recordUpstreamTask(h.database.db, id, 'no-such-upstream-task');
    await enqueueVideoTask(h.queue, { taskId: id });
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('upstream_unknown');
  });

  it('fails a task past its deadline with code timeout, and refunds it', async () => {
    const before = await balance();
    const id = await h.createTask({ deadlineMs: -1 });
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('timeout');
    expect(await balance()).toBe(before);
    expect((await sim.stats()).video.submitted).toBe(0);
  });

  it('fails a task that keeps polling past its deadline', async () => {
    await sim.control('POST', '/video-timing', { pendingMs: 60_000, runningMs: 60_000 });
    const id = await h.createTask({ deadlineMs: 1_000 });
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('timeout');
  });

  it('runs a job enqueued twice only once', async () => {
    const id = await h.createTask();
    await enqueueVideoTask(h.queue, { taskId: id });
    expect((await settled(id)).status).toBe('succeeded');
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('carries many tasks at once without holding worker slots while waiting', async () => {
    await sim.control('POST', '/video-timing', { pendingMs: 300, runningMs: 700 });
    // 60 tasks against a concurrency of 20: only possible in time because waiting tasks are delayed jobs
    const ids = await Promise.all(Array.from({ length: 60 }, () => h.createTask()));
    const rows = await Promise.all(ids.map(settled));
    expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
    expect((await sim.stats()).video.submitted).toBe(60);
  });
});
