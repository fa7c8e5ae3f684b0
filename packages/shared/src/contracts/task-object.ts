import type { TaskRow } from '../db/schema';

export interface VideoTaskObject {
  id: string;
  task_id: string;
  object: 'video';
  model: string;
  /** the prompt the task was created with */
  prompt: string;
  status: TaskRow['status'];
  progress: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** an unfinished task: when it will likely finish (unix seconds), from the durations learned for its model; null while unknown */
  estimated_completion_at?: number | null;
  video_url?: string;
  /** signed link to the video's first frame (JPEG), like video_url */
  thumbnail_url?: string;
  /** Unix seconds: when video_url and thumbnail_url stop working (end of retention, or deletion) */
  expires_at?: number | null;
  error?: { code: string; message: string };
  metadata: unknown;
}

const unix = (d: Date): number => Math.floor(d.getTime() / 1000);

/**
 * The public task object of a row (ARCHITECTURE.md contract). A succeeded task's links are left
 * out once `expires_at` has passed (`opts.now`), so no answer carries a link that no longer works.
 * `opts.estimate` (unix seconds or null) adds `estimated_completion_at` to an unfinished task.
 */
export function toTaskObject(
  row: TaskRow,
  opts: { now?: number; estimate?: number | null } = {},
): VideoTaskObject {
  const now = opts.now ?? Date.now();
  const estimate = opts.estimate;
  const obj: VideoTaskObject = {
    id: row.id,
    task_id: row.id,
    object: 'video',
    model: row.model,
    prompt: row.prompt,
    status: row.status,
    progress: row.progress,
    created_at: unix(row.createdAt),
    updated_at: unix(row.updatedAt),
    completed_at: row.completedAt ? unix(row.completedAt) : null,
    metadata: row.metadata,
  };
  if (estimate !== undefined && row.status !== 'succeeded' && row.status !== 'failed') {
    obj.estimated_completion_at = estimate;
  }
  if (row.status === 'succeeded') {
    const live = !row.expiresAt || row.expiresAt.getTime() > now;
    if (live && row.videoUrl) obj.video_url = row.videoUrl;
    if (live && row.thumbnailUrl) obj.thumbnail_url = row.thumbnailUrl;
    obj.expires_at = row.expiresAt ? unix(row.expiresAt) : null;
  }
  if (row.status === 'failed') {
    obj.error = { code: row.errorCode ?? 'unknown_error', message: row.errorMessage ?? 'The task failed.' };
  }
  return obj;
}
