import type { TaskRow } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { getTaskForAccount } from '@mediagate/shared/tasks';
import type { ApiDeps } from './deps';

/** The name a route gives the task id of its path in errors: `video_id` where OpenAI's client names it so. */
export type TaskIdParam = 'task_id' | 'video_id';

/** The 404 of a task id that names no task of the caller (another account's task is the same as none). */
export const videoTaskNotFound = (taskId: string, param: TaskIdParam): ApiError =>
  new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, param);

/** The caller's task named `taskId`, or the 404 of videoTaskNotFound (a malformed id reads nothing). */
export async function ownVideoTask(
  deps: ApiDeps,
  accountId: string,
  taskId: string,
  param: TaskIdParam,
): Promise<TaskRow> {
  const task = TASK_ID_PATTERN.test(taskId)
    ? await getTaskForAccount(deps.database.db, taskId, accountId)
    : null;
  if (!task) throw videoTaskNotFound(taskId, param);
  return task;
}
