import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { getTaskForAccount, isTerminalEventId, type TaskEvent, taskEventOf } from '@mediagate/shared/tasks';
import type { RequestHandler, Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { playgroundAuth } from '../middleware/playground-auth';
import { endpoint, type Route } from '../route';

/** A `Last-Event-ID` the stream understands: the number of a state it sent; anything else means none. */
function lastEventId(header: unknown): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || !/^\d{1,6}$/.test(value.trim())) return 0;
  return Number(value.trim());
}

/**
 * GET /v1/videos/:taskId/events: a Server-Sent Events stream of the task object, one event per
 * move (status, progress) and at once the current state, ending after the terminal state. Any
 * replica serves it: moves reach every replica through Redis pub/sub (TaskEventHub). Event ids grow
 * with the state, so a client reconnecting with `Last-Event-ID` gets only newer states. Comments
 * keep idle connections open, and the stream re-reads the task now and then in case a move was
 * published while this replica's subscription was down. A stream ends as soon as its key stops
 * authenticating (disabled, deleted, expired, outside its IP list, or its account disabled): the
 * announcement of that change reaches every replica's hub, and each re-read checks the key too.
 * Streams are capped per key, per account and per replica (429).
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/videos/:taskId/events', ...taskEventsHandlers(deps, [requireApiKey(deps)]));
}

/**
 * A task's event stream after `authenticate` (handlers that set the request's principal): the one
 * stream of GET /v1/videos/:taskId/events and of the console's playground, with the same limits.
 */
export function taskEventsHandlers(deps: ApiDeps, authenticate: RequestHandler[]): RequestHandler[] {
  return [
    ...authenticate,
    async (req, res) => {
      const { accountId, keyId } = principalOf(req);
      const taskId = String(req.params.taskId);
      const hub = deps.taskEvents;
      const notFound = () =>
        new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, 'task_id');
      if (!TASK_ID_PATTERN.test(taskId)) throw notFound();
      if (!hub) throw new ApiError('service_unavailable', 'Event streams are not available on this server.');
      const slot = hub.openStream({ keyId, accountId, ip: req.ip ?? '' });
      if (typeof slot === 'string') {
        const { SSE_MAX_STREAMS_PER_KEY, SSE_MAX_STREAMS_PER_ACCOUNT } = deps.config;
        throw new ApiError(
          'rate_limit_exceeded',
          slot === 'key'
            ? `Too many open event streams for this key (at most ${SSE_MAX_STREAMS_PER_KEY} on this server); close one first.`
            : slot === 'account'
              ? `Too many open event streams for this account (at most ${SSE_MAX_STREAMS_PER_ACCOUNT} on this server, all its keys together); close one first.`
              : 'This server holds as many event streams as it takes; retry shortly, or poll GET /v1/videos/{id}.',
          undefined,
          { 'retry-after': '5' },
        );
      }
      let sent = lastEventId(req.headers['last-event-id']);
      let closed = false;
      let timers: NodeJS.Timeout[] = [];
      // Listen before reading, so that no move falls between the read and the subscription.
      const early: TaskEvent[] = [];
      let send: (event: TaskEvent) => void = (event) => early.push(event);
      const unsubscribe = hub.subscribe(taskId, (event) => {
        if (event.accountId === accountId) send(event);
      });
      const close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        slot.release();
        for (const t of timers) clearInterval(t);
        timers = [];
        if (res.headersSent && !res.writableEnded) res.end();
      };
      const read = async () => {
        const row = await getTaskForAccount(deps.database.db, taskId, accountId);
        return row ? taskEventOf(row, await deps.durations?.summary(row.model)) : null;
      };
      let first: TaskEvent | null;
      try {
        first = await read();
      } catch (err) {
        close();
        throw err;
      }
      if (!first) {
        close();
        throw notFound();
      }
      res.status(200);
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.setHeader('cache-control', 'no-cache, no-transform');
      res.setHeader('connection', 'keep-alive');
      res.setHeader('x-accel-buffering', 'no');
      res.flushHeaders();
      req.socket.setNoDelay(true);
      req.on('close', close);
      res.on('error', close);
      // at shutdown, and the moment the key stops authenticating (the announcement of its change)
      slot.track({
        close,
        revoked: () => {
          req.log.info({ taskId }, 'event stream ended: its key no longer authenticates');
          close();
        },
      });

      send = (event) => {
        if (closed || event.eventId <= sent) return;
        sent = event.eventId;
        res.write(`id: ${event.eventId}\ndata: ${event.json}\n\n`);
        if (isTerminalEventId(event.eventId)) close();
      };
      res.write(`retry: ${deps.config.SSE_RETRY_MS}\n\n`);
      send(first);
      for (const event of early) send(event);
      // a finished task has nothing more to say, even to a client that has seen its last state
      if (isTerminalEventId(first.eventId)) close();
      if (closed) return;
      timers.push(
        setInterval(() => {
          if (!closed) res.write(': keep-alive\n\n');
        }, deps.config.SSE_HEARTBEAT_MS),
        setInterval(() => {
          // the key too, in case its change was announced while this replica's subscription was down
          slot.stillAllowed().then(
            (allowed) => {
              if (!allowed) close();
            },
            (err: unknown) => req.log.warn({ err, taskId }, 'event stream could not check its key'),
          );
          read().then(
            (event) => {
              if (event) send(event);
              else close();
            },
            (err: unknown) => req.log.warn({ err, taskId }, 'event stream could not re-read its task'),
          );
        }, deps.config.SSE_RESYNC_MS),
      );
      for (const t of timers) t.unref();
    },
  ];
}

export const contract = endpoint(
  'GET /v1/videos/:taskId/events',
  'Server-Sent Events: the task object at once and on every move, ending after the terminal state; resumable with Last-Event-ID',
  {
    tag: 'videos',
    auth: 'apiKey',
    200: {
      description:
        'an event stream: `id: <state number>` and `data: <the task object>` per event, comment lines as heartbeats',
      contentType: 'text/event-stream',
    },
    404: 'no such task for this account',
    429: 'too many open event streams for this key, this account or this server',
  },
);

export const route: Route = { mount: '/v1', contracts: [contract], register };

/** GET /console/api/playground/videos/:taskId/events: the same stream on the session, as the playground key. */
export const playgroundRoute: Route = {
  mount: '/console/api',
  contracts: [
    endpoint(
      'GET /console/api/playground/videos/:taskId/events',
      "Server-Sent Events of one of the account's tasks on the console session, as GET /v1/videos/{id}/events streams them",
      {
        tag: 'console',
        auth: 'session',
        200: {
          description: 'an event stream: `id: <state number>` and `data: <the task object>` per event',
          contentType: 'text/event-stream',
        },
        403: 'the playground key is disabled',
        404: 'no such task for this account',
        429: 'too many open event streams',
      },
    ),
  ],
  register: (router, deps) => {
    router.get('/playground/videos/:taskId/events', ...taskEventsHandlers(deps, playgroundAuth(deps)));
  },
};
