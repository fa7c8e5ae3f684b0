import type { components } from '../../api/schema';

/** A task as the console's pages show it: the task object with its media's state, cost and key. */
export type VideoTask = components['schemas']['ConsoleVideoTask'];

/** What a task's video has become: playing, not there yet, or gone (and why). */
export type MediaState = 'playable' | 'none' | 'deleted' | 'expired';

export function mediaStateOf(task: VideoTask, now = Date.now()): MediaState {
  if (task.status !== 'succeeded') return 'none';
  if (task.media_status === 'deleted') return 'deleted';
  if (task.media_status === 'expired' || (task.expires_at && task.expires_at * 1000 <= now)) return 'expired';
  return task.video_url ? 'playable' : 'expired';
}

/** What the task cost in the end (micro-USD): the charge less what was given back. */
export const costOf = (task: VideoTask): number | null =>
  task.charged_micro_usd === null ? null : task.charged_micro_usd - task.refunded_micro_usd;

/** The input image the task was made from (metadata.input.img_url), when it names one. */
export function inputImageOf(task: VideoTask): string | null {
  const input = (task.metadata as { input?: { img_url?: unknown } }).input;
  const url = typeof input?.img_url === 'string' ? input.img_url : null;
  return url && /^(https?:|data:image\/)/i.test(url) ? url : null;
}
