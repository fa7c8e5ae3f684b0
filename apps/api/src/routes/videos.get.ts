import { toTaskObject, videoTaskObject } from '@mediagate/shared/contracts';
import type { TaskRow } from '@mediagate/shared/db';
import { isTerminal, taskEventOf } from '@mediagate/shared/tasks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoint, inConsole } from '../route';
import { ownVideoTask } from '../video-tasks';

/** How long a replica may answer a succeeded task from memory: its links expire, and a deletion elsewhere ends them. */
const LINKED_TASK_CACHE_MS = 30_000;

/** Until when a cached answer of `row` holds: forever for a failed task; a bounded time for one with live links. */
function cacheUntil(row: TaskRow, now: number): number | undefined {
  if (row.status !== 'succeeded' || !row.expiresAt) return undefined;
  if (row.expiresAt.getTime() <= now) return undefined;
  return Math.min(row.expiresAt.getTime(), now + LINKED_TASK_CACHE_MS);
}

/**
 * GET /v1/videos/:taskId: the task object; another account's task is indistinguishable from none.
 * Terminal tasks never change, so their serialized answer is kept in `taskCache`; an answer
 * carrying media links is kept for a bounded time and never past their expiry, so no cached answer
 * holds a dead link. An unfinished task's answer (no links) is kept briefly in the event hub, which
 * replaces it on every move the workers publish. Either way a poll usually costs no query.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/videos/:taskId', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const taskId = String(req.params.taskId);
    const now = Date.now();
    const terminal = deps.taskCache?.get(taskId);
    const cached =
      terminal && (terminal.until === undefined || terminal.until > now)
        ? terminal
        : deps.taskEvents?.running?.get(taskId);
    if (cached && cached.accountId === accountId) {
      return void res.status(200).type('application/json').send(cached.json);
    }
    const row = await ownVideoTask(deps, accountId, taskId, 'task_id');
    if (isTerminal(row.status)) {
      const json = JSON.stringify(toTaskObject(row, { now }));
      deps.taskCache?.set(taskId, { accountId, json, until: cacheUntil(row, now) });
      return void res.status(200).type('application/json').send(json);
    }
    const event = taskEventOf(row, await deps.durations?.summary(row.model));
    deps.taskEvents?.remember(event);
    res.status(200).type('application/json').send(event.json);
  });
}

export const contract = endpoint('GET /v1/videos/:taskId', 'Retrieve a task', {
  tag: 'videos',
  auth: 'apiKey',
  200: videoTaskObject,
  404: 'no such task for this account',
});

export const routes = accountRoutes(
  register,
  [contract],
  [inConsole(contract, 'A video task', { 200: videoTaskObject, 404: 'no such task' })],
);
