import { authenticateSession } from '@mediagate/shared/accounts';
import { videoTaskObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import {
  type ConsoleTaskRow,
  getConsoleTask,
  isTerminal,
  listConsoleTasks,
  taskEventOf,
} from '@mediagate/shared/tasks';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { presentedSessionToken, requireSession, sessionOf } from '../middleware/session';
import { endpoints, type Route } from '../route';
import { videoTaskNotFound } from '../video-tasks';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');

/** Query of GET /console/api/videos: the /v1 list's paging and status, and the console's search. */
export const consoleVideosQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().regex(TASK_ID_PATTERN, 'must be a task id').optional(),
  status: z.enum(['pending', 'processing', 'succeeded', 'failed']).optional(),
  id: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[0-9A-Za-z_]+$/, 'must be (the start of) a task id')
    .optional(),
  key_id: z.string().min(1).max(64).optional(),
  model: z.string().min(1).max(128).optional(),
  created_from: day.optional().describe('first day (UTC), inclusive'),
  created_to: day.optional().describe('last day (UTC), inclusive'),
});

const mediaStatus = z
  .enum(['pending', 'stored', 'failed', 'expired', 'deleted'])
  .nullable()
  .describe(
    "the kept video: pending (not copied yet; video_url still plays the vendor's file), stored, failed (copy failed; the vendor's file plays while it lives), expired, deleted; null until the task succeeds",
  );

/** A task as the console's pages show it: the task object with its media's state, its cost and its key. */
export const consoleVideoTask = videoTaskObject
  .extend({
    media_status: mediaStatus,
    media_deleted_at: z.number().int().nullable(),
    charged_micro_usd: z.number().int().nullable().describe('what the task was charged (micro-USD)'),
    refunded_micro_usd: z.number().int().describe('what was given back (micro-USD)'),
    api_key: z
      .object({ id: z.string(), name: z.string(), prefix: z.string() })
      .nullable()
      .describe('the key that created the task (null once the key is deleted)'),
  })
  .meta({ id: 'ConsoleVideoTask' });

const consoleVideoList = z
  .object({
    object: z.literal('list'),
    data: z.array(consoleVideoTask),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .meta({ id: 'ConsoleVideoTaskList' });

type ConsoleVideoTask = z.infer<typeof consoleVideoTask>;

const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/**
 * The console's view of a task. Its first frame is linked only once the stored copy has one (until
 * then the link would answer 404), and an unfinished task carries its completion estimate.
 */
async function viewOf(deps: ApiDeps, r: ConsoleTaskRow): Promise<ConsoleVideoTask> {
  const { task } = r;
  const durations = isTerminal(task.status) ? undefined : await deps.durations?.summary(task.model);
  const object = JSON.parse(taskEventOf(task, durations).json) as ConsoleVideoTask;
  if (!(r.mediaStatus === 'stored' && r.hasThumbnail)) delete object.thumbnail_url;
  if (r.mediaStatus === 'deleted' || r.mediaStatus === 'expired') {
    delete object.video_url;
    delete object.thumbnail_url;
  }
  return {
    ...object,
    media_status: r.mediaStatus,
    media_deleted_at: unix(r.mediaDeletedAt),
    charged_micro_usd: r.chargedMicroUsd,
    refunded_micro_usd: r.refundedMicroUsd,
    api_key: r.key,
  };
}

/**
 * The console's task pages: GET /console/api/videos (searchable list), GET /console/api/videos/:id
 * and GET /console/api/videos/events, a Server-Sent Events stream of every move of the account's
 * tasks (created, started, progressed, finished, media stored or deleted) on the console session,
 * so that the list and a task's page follow within a second. The stream ends when the session
 * does (checked at each resync) and at shutdown; the browser reconnects by itself.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/videos/events', requireSession(deps), async (req, res) => {
    const { accountId } = sessionOf(req);
    const hub = deps.taskEvents;
    if (!hub) throw new ApiError('service_unavailable', 'Event streams are not available on this server.');
    const slot = hub.openConsoleStream(accountId);
    if (!slot) {
      throw new ApiError(
        'rate_limit_exceeded',
        `Too many open live pages for this account (at most ${deps.config.SSE_MAX_STREAMS_PER_ACCOUNT} on this server); close one first.`,
        undefined,
        { 'retry-after': '5' },
      );
    }
    const token = presentedSessionToken(req) ?? '';
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    let forget = () => {};
    const unsubscribe = hub.subscribeAccount(accountId, (event) => {
      if (!closed) res.write(`event: task\ndata: ${event.json}\n\n`);
    });
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      forget();
      slot.release();
      for (const t of timers) clearInterval(t);
      if (!res.writableEnded) res.end();
    };
    forget = hub.onShutdown(close);
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    req.on('close', close);
    res.on('error', close);
    res.write(`retry: ${deps.config.SSE_RETRY_MS}\n\n`);
    // the client refreshes what it shows once the stream is open, so nothing falls in between
    res.write('event: ready\ndata: {}\n\n');
    timers.push(
      setInterval(() => {
        if (!closed) res.write(': keep-alive\n\n');
      }, deps.config.SSE_HEARTBEAT_MS),
      setInterval(() => {
        authenticateSession(deps.database.db, token).then(
          (session) => {
            if (!session || session.accountId !== accountId) close();
            // moves published while this replica's subscription was down: the client re-reads
            else if (!closed) res.write('event: resync\ndata: {}\n\n');
          },
          (err: unknown) => req.log.warn({ err }, 'live console stream could not check its session'),
        );
      }, deps.config.SSE_RESYNC_MS),
    );
    for (const t of timers) t.unref();
  });

  router.get('/videos', requireSession(deps), async (req, res) => {
    const { accountId } = sessionOf(req);
    const q = consoleVideosQuery.parse(req.query);
    const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000);
    const page = await listConsoleTasks(deps.database.db, {
      accountId,
      limit: q.limit,
      afterId: q.after,
      status: q.status,
      idPrefix: q.id,
      keyId: q.key_id,
      model: q.model,
      createdFrom: q.created_from ? new Date(`${q.created_from}T00:00:00Z`) : undefined,
      createdBefore: q.created_to ? nextDay(q.created_to) : undefined,
    });
    const data = await Promise.all(page.rows.map((r) => viewOf(deps, r)));
    res.status(200).json({
      object: 'list',
      data,
      has_more: page.hasMore,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
    });
  });

  router.get('/videos/:taskId', requireSession(deps), async (req, res) => {
    const { accountId } = sessionOf(req);
    const taskId = String(req.params.taskId);
    const row = TASK_ID_PATTERN.test(taskId)
      ? await getConsoleTask(deps.database.db, accountId, taskId)
      : null;
    if (!row) throw videoTaskNotFound(taskId, 'task_id');
    res.status(200).json(await viewOf(deps, row));
  });
}

const op = endpoints({ tag: 'console', auth: 'session' });

export const contracts = [
  op(
    'GET /console/api/videos/events',
    "Server-Sent Events: every move of the account's tasks (event `task`, the task object), `ready` once open, `resync` now and then",
    {
      200: {
        description: 'an event stream; comment lines as heartbeats',
        contentType: 'text/event-stream',
      },
      429: 'too many open live pages for this account',
    },
  ),
  op('GET /console/api/videos', "The account's video tasks, newest first, searchable", {
    query: consoleVideosQuery,
    200: consoleVideoList,
  }),
  op('GET /console/api/videos/:taskId', 'A video task with its media state, cost and key', {
    200: consoleVideoTask,
    404: 'no such task',
  }),
];

export const route: Route = { mount: '/console/api', contracts, register };
