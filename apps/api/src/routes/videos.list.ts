import { listOf, toTaskObject, videoTaskObject } from '@mediagate/shared/contracts';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { listTasksForAccount } from '@mediagate/shared/tasks';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoint } from '../route';

/** Query of GET /v1/videos. `completed` is accepted as a synonym of `succeeded`. */
export const listVideosQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().regex(TASK_ID_PATTERN, 'must be a task id').optional(),
  status: z
    .enum(['pending', 'processing', 'succeeded', 'completed', 'failed'])
    .transform((s) => (s === 'completed' ? 'succeeded' : s))
    .optional(),
  order: z.literal('desc').optional(),
});

/** GET /v1/videos: the account's tasks, newest first, in the OpenAI list shape with keyset paging. */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/videos', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const q = listVideosQuery.parse(req.query);
    const page = await listTasksForAccount(deps.database.db, {
      accountId,
      limit: q.limit,
      afterId: q.after,
      status: q.status,
    });
    const data = page.rows.map((row) => toTaskObject(row));
    res.status(200).json({
      object: 'list',
      data,
      has_more: page.hasMore,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
    });
  });
}

export const contract = endpoint('GET /v1/videos', "List the account's tasks, newest first", {
  tag: 'videos',
  auth: 'apiKey',
  query: listVideosQuery,
  200: listOf(videoTaskObject, 'VideoTaskList'),
});

export const routes = accountRoutes(register, [contract], ["The account's video tasks, newest first"]);
