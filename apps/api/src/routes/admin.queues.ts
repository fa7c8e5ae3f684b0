import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { recordOperatorAction } from '@mediagate/shared/audit';
import { consoleObject, listOf } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { QUEUE_NAMES, type QueueName } from '@mediagate/shared/queue';
import type { Express, RequestHandler, Router } from 'express';
import { z } from 'zod';
import { auditActor } from '../audit';
import type { ApiDeps } from '../deps';
import { presentedSessionToken, requireAdmin } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { type ConsolePages, wantsPage } from './console-app';

const queueOf = (deps: ApiDeps, name: string) => {
  if (name === QUEUE_NAMES.video) return deps.videoQueue;
  if (name === QUEUE_NAMES.callbacks) return deps.callbacksQueue;
  if (name === QUEUE_NAMES.media && deps.mediaQueue) return deps.mediaQueue;
  throw new ApiError('not_found', `No queue named '${name.slice(0, 64)}'.`, 'queue');
};

/** Every queue of the gateway the API holds. */
const queuesOf = (deps: ApiDeps) =>
  [deps.videoQueue, deps.callbacksQueue, deps.mediaQueue].filter((q): q is NonNullable<typeof q> => !!q);

/**
 * What each queue carries, and why its Completed list is empty: a finished job is removed at once,
 * because its id is the id of the row it works on and a kept one would stop that row from being
 * enqueued again (the reconciler, a redelivery). What finished is counted in Prometheus instead.
 */
const QUEUE_DESCRIPTIONS: Record<QueueName, string> = {
  [QUEUE_NAMES.video]:
    'Video tasks: one job per task, run again for each poll. Completed jobs are removed at once (the job id is the task id); finished tasks are counted by mediagate_video_task_outcomes_total.',
  [QUEUE_NAMES.callbacks]:
    'Callback deliveries: one job per delivery, re-scheduled for each retry. Completed jobs are removed at once (the job id is the delivery id); delivered callbacks are counted by mediagate_callback_attempts_total{outcome="delivered"}.',
  [QUEUE_NAMES.media]:
    'Copies of succeeded videos into storage: one job per try. Completed jobs are removed at once (the job id is the task id); copies are counted by mediagate_media_copies_total.',
};

/**
 * The queue dashboard (bull-board: every queue's job lists, retry and clean actions, links back
 * to the console) at /admin/queues, and
 * pause/resume of a queue through the admin API; both for operators only. The dashboard works from
 * the console's session cookie, so an operator signed in to the console opens it directly.
 */
export function mountQueueDashboard(app: Express, deps: ApiDeps, pages?: ConsolePages | null): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/admin/queues');
  createBullBoard({
    queues: queuesOf(deps).map(
      (q) => new BullMQAdapter(q, { description: QUEUE_DESCRIPTIONS[q.name as QueueName] ?? '' }),
    ),
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'mediagate queues',
        miscLinks: [
          { text: 'Console: tasks', url: '/admin/tasks' },
          { text: 'Console: queues', url: '/admin/queue-status' },
        ],
      },
    },
  });
  const dashboard = serverAdapter.getRouter() as Express;
  // bull-board's own Express app would add X-Powered-By back
  dashboard.disable('x-powered-by');
  // A browser that opens the dashboard without a session gets the console, which signs in and comes back.
  const signInFirst: RequestHandler = (req, res, next) => {
    if (pages && wantsPage(req) && !presentedSessionToken(req)) return pages.sendIndex(res);
    next();
  };
  // bull-board's page asks Google Fonts for its typefaces: the CSP allows no third-party styles
  // (and an operator's network may not reach them), so the page uses the system's fonts instead
  const noExternalFonts: RequestHandler = (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) =>
      send(
        typeof body === 'string'
          ? body.replace(/<link[^>]*fonts\.(googleapis|gstatic)\.com[^>]*>/g, '')
          : body,
      );
    next();
  };
  app.use('/admin/queues', signInFirst, ...requireAdmin(deps), noExternalFonts, dashboard);
}

/**
 * POST /admin/api/queues/:name/pause and /resume (recorded in the audit log); GET
 * /admin/api/queues: depth per state.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/queues', ...requireAdmin(deps), async (_req, res) => {
    const data = await Promise.all(
      queuesOf(deps).map(async (q) => ({
        name: q.name,
        paused: await q.isPaused(),
        counts: await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
      })),
    );
    res.status(200).json({ object: 'list', data });
  });
  for (const action of ['pause', 'resume'] as const) {
    router.post(`/queues/:name/${action}`, ...requireAdmin(deps), async (req, res) => {
      const queue = queueOf(deps, String(req.params.name));
      // the queue's state lives in Redis: the audit row commits only once the change is made
      await deps.database.db.transaction(async (tx) => {
        const before = await queue.isPaused();
        await recordOperatorAction(tx, auditActor(req), {
          action: `queue.${action}`,
          accountId: null,
          targetType: 'queue',
          targetId: queue.name,
          before: { paused: before },
          after: { paused: action === 'pause' },
        });
        await (action === 'pause' ? queue.pause() : queue.resume());
      });
      req.log.warn({ queue: queue.name, action }, 'queue state changed by an operator');
      res.status(200).json({ name: queue.name, paused: await queue.isPaused() });
    });
  }
}

const queueState = consoleObject('QueueState', { name: z.string(), paused: z.boolean() });

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op('GET /admin/api/queues', 'Queues with their depth by state', { 200: listOf(queueState, 'QueueList') }),
  op('POST /admin/api/queues/:name/pause', 'Pause a queue', { 200: queueState }),
  op('POST /admin/api/queues/:name/resume', 'Resume a queue', { 200: queueState }),
];

export const route: Route = { mount: '/admin/api', contracts, register };
