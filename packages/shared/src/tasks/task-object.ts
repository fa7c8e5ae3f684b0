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
  error?: { code: string; message: string };
  metadata: unknown;
}

const unix = (d: Date): number => Math.floor(d.getTime() / 1000);

/** The public task object of a row (ARCHITECTURE.md contract). */
export function toTaskObject(row: TaskRow): VideoTaskObject {
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
  if (row.status === 'succeeded' && row.videoUrl) obj.video_url = row.videoUrl;
  if (row.status === 'failed') {
    obj.error = { code: row.errorCode ?? 'unknown_error', message: row.errorMessage ?? 'The task failed.' };
  }
  return obj;
}
