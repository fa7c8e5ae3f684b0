// The module's public face: what the apps and the other modules call. Anything else is internal.
export { findTasks } from './admin';
export type { TaskSearch } from './admin';
export type { CancelOutcome } from './cancel';
export { TaskDurations, summarize } from './durations';
export type { DurationSummary, TaskDurationsOptions } from './durations';
export {
  TaskEventPublisher,
  decodeTaskEvent,
  encodeTaskEvent,
  isTerminalEventId,
  taskEventId,
  taskEventOf,
  taskEventsChannel,
  taskEventsChannels,
} from './events';
export type { TaskEvent } from './events';
export {
  IdempotencyInFlightError,
  IdempotencyMismatchError,
  deleteExpiredIdempotencyKeys,
  findIdempotentTask,
  requestHash,
} from './idempotency';
export type { IdempotencyClaim } from './idempotency';
export { TaskLifecycle } from './lifecycle';
export type { CreatedTask, SuccessRefund, TaskLifecycleDeps } from './lifecycle';
export { listTasksForAccount } from './list';
export { activeTaskStats } from './stats';
export type { ActiveTaskStats } from './stats';
export {
  clearSubmitStarted,
  createVideoTask,
  failTask,
  getTask,
  getTaskForAccount,
  isTerminal,
  listActiveTasks,
  listInFlightUpstreamTasks,
  markSubmitStarted,
  recordUpstreamTask,
  startTask,
  succeedTask,
  updateProgress,
} from './tasks';
export type { InFlightUpstreamTask, NewVideoTask, SuccessSettlement, TaskTransition } from './tasks';
export { getConsoleTask, listConsoleTasks } from './console-list';
export type { ConsoleTaskFilter, ConsoleTaskRow } from './console-list';
