import { JOB_CATALOG } from '@mediagate/shared/queue';
import { getTask } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import {
  type Sim,
  startSim,
  startWorkerHarness,
  terminateLockWaiter,
  type WorkerHarness,
} from '../../test/harness';
import type { VideoJob } from './step';

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

/** Adds the task's job as the API does (`attempts`: other than the catalog's), kept once completed so that its attempts can be read. */
const enqueueKept = (taskId: string, attempts?: number) =>
  h.queue.add(
    'video.run',
    { taskId },
    {
      ...JOB_CATALOG['video.run'].options,
      ...(attempts === undefined ? {} : { attempts }),
      jobId: taskId,
      removeOnComplete: false,
    },
  );

/** the job `id` once BullMQ has completed it; fails the test as soon as the job has failed for good */
async function completedJob(id: string, timeoutMs = 20_000): Promise<VideoJob> {
  const state = await waitFor(
    async () => {
      const now = await h.queue.getJobState(id);
      return now === 'completed' || now === 'failed' ? now : null;
    },
    { what: `job ${id} to finish`, timeoutMs },
  );
  const job = (await h.queue.getJob(id)) as VideoJob;
  expect({ state, failedReason: state === 'failed' ? job.failedReason : undefined }).toEqual({
    state: 'completed',
    failedReason: undefined,
  });
  return job;
}

describe('a video job meeting a database fault of the moment', () => {
  /**
   * Enqueues the task's job (with `attempts`) while the test holds its row, so that the worker's
   * start waits on the row's lock, and terminates the backend running it (57P01).
   */
  async function enqueueAndTerminateStart(id: string, attempts?: number): Promise<void> {
    const holder = await h.database.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from tasks where id = $1 for update', [id]);
      await enqueueKept(id, attempts);
      await terminateLockWaiter(h.database.pool, 'the start statement to wait on the row lock');
    } finally {
      await holder.query('rollback');
      holder.release();
    }
  }

  it('retries a start whose connection was terminated as a delayed run, using no attempt, and succeeds', async () => {
    const id = await h.createTask({ enqueue: false });
    await enqueueAndTerminateStart(id);
    const job = await completedJob(id);
    expect((await getTask(h.database.db, id))?.status).toBe('succeeded');
    // retried as a delayed run of its first attempt, which completed it: no attempt was spent on it
    expect(job.attemptsMade).toBe(1);
    expect(job.data.databaseRetries).toBe(0);
    expect(job.failedReason).toBeFalsy();
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('does not fail a job on its last attempt for a terminated start (as after a long outage)', async () => {
    const id = await h.createTask({ enqueue: false });
    await enqueueAndTerminateStart(id, 1);
    await completedJob(id);
    expect((await getTask(h.database.db, id))?.status).toBe('succeeded');
    expect((await sim.stats()).video.submitted).toBe(1);
  });

  it('keeps an upstream id the database would not take for half a minute with the job, and stores it on the next run', async () => {
    const pool = h.database.pool;
    // serialization failures (40001) for every write of an upstream id in the submitting run's ~26 s of tries
    await pool.query(`
      drop sequence if exists upstream_id_refusals;
      create sequence upstream_id_refusals;
      create or replace function refuse_upstream_id() returns trigger language plpgsql as $$
      begin
        if new.upstream_task_id is not null and old.upstream_task_id is null
           and nextval('upstream_id_refusals') <= 10 then
          raise exception 'refused for the test' using errcode = '40001';
        end if;
        return new;
      end $$;
      create or replace trigger refuse_upstream_id before update on tasks
        for each row execute function refuse_upstream_id();`);
    try {
      const id = await h.createTask({ enqueue: false });
      await enqueueKept(id);
      const job = await completedJob(id, 50_000);
      const row = await getTask(h.database.db, id);
      expect(row).toMatchObject({ status: 'succeeded', errorCode: null });
      expect(row?.upstreamTaskId).toBe(job.data.submitted?.upstreamTaskId);
      expect((await pool.query('select last_value from upstream_id_refusals')).rows[0].last_value).toBe('11');
      expect((await sim.stats()).video.submitted).toBe(1);
    } finally {
      await pool.query('drop trigger refuse_upstream_id on tasks');
    }
  }, 60_000);

  it('waits its backoff when timing out an overdue task meets a fault, instead of running again at once', async () => {
    const pool = h.database.pool;
    const id = await h.createTask({ enqueue: false, deadlineMs: 1 });
    // the task's move to failed (its time-out) meets a serialization failure, every time, until dropped
    await pool.query(`
      create or replace function refuse_time_out() returns trigger language plpgsql as $$
      begin
        if new.status = 'failed' and old.status <> 'failed' then
          raise exception 'refused for the test' using errcode = '40001';
        end if;
        return new;
      end $$;
      create or replace trigger refuse_time_out before update on tasks
        for each row execute function refuse_time_out();`);
    try {
      await enqueueKept(id);
      // past its deadline, a retry that ran again at once would never be seen waiting: the job's
      // place among the delayed and its fields are read in one transaction (a run promoted from
      // the delayed set has its delay set to 0 until it is delayed again)
      await waitFor(
        async () => {
          const [inDelayed, fields] = ((await h.redis
            .multi()
            .zscore(h.queue.keys.delayed!, id)
            .hmget(h.queue.toKey(id), 'delay', 'data')
            .exec()) ?? []) as [[unknown, string | null], [unknown, [string | null, string | null]]];
          const [delay, data] = fields[1];
          const retries = data ? ((JSON.parse(data) as VideoJob['data']).databaseRetries ?? 0) : 0;
          return inDelayed[1] !== null && retries >= 4 && Number(delay) > 0;
        },
        { what: 'the overdue job to wait its backoff', intervalMs: 5 },
      );
    } finally {
      await pool.query('drop trigger refuse_time_out on tasks');
    }
    await completedJob(id);
    expect((await getTask(h.database.db, id))?.status).toBe('failed');
  });

  it('still ends the job of a task that does not exist at once, without retrying it', async () => {
    await enqueueKept('task_missing_for_good');
    const job = await completedJob('task_missing_for_good');
    expect(job.attemptsMade).toBe(1);
    expect(job.data.databaseRetries).toBeUndefined();
    expect((await sim.stats()).video.submitted).toBe(0);
  });

  it('spends an attempt on a database error that is not of the moment', async () => {
    const pool = h.database.pool;
    const id = await h.createTask({ enqueue: false });
    await pool.query(`
      create or replace function refuse_start() returns trigger language plpgsql as $$
      begin
        if new.status = 'processing' and old.status = 'pending' then
          raise exception 'refused for the test';
        end if;
        return new;
      end $$;
      create or replace trigger refuse_start before update on tasks
        for each row execute function refuse_start();`);
    try {
      await enqueueKept(id);
      await waitFor(async () => ((await h.queue.getJob(id))?.attemptsMade ?? 0) >= 1, {
        what: 'the job to spend an attempt',
      });
    } finally {
      await pool.query('drop trigger refuse_start on tasks');
    }
    const job = await completedJob(id);
    expect((await getTask(h.database.db, id))?.status).toBe('succeeded');
    expect(job.attemptsMade).toBeGreaterThanOrEqual(2);
    expect(job.data.databaseRetries).toBeUndefined();
  });
});
