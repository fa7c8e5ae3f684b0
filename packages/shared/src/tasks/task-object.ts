import type { TaskRow } from '../db/schema';

export interface VideoTaskObject {
  id: string;
  task_id: string;
  object: 'video';
  model: string;
  status: TaskRow['status'];
  progress: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
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
 * out once `expires_at` has passed (`now`), so no answer carries a link that no longer works.
 */
export function toTaskObject(row: TaskRow, now = Date.now()): VideoTaskObject {
  const obj: VideoTaskObject = {
    id: row.id,
    task_id: row.id,
    object: 'video',
    model: row.model,
    status: row.status,
    progress: row.progress,
    created_at: unix(row.createdAt),
    updated_at: unix(row.updatedAt),
    completed_at: row.completedAt ? unix(row.completedAt) : null,
    metadata: row.metadata,
  };
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
