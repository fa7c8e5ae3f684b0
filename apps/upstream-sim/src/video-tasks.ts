import { MinHeap } from './min-heap';
import type { TaskJournal } from './task-journal';
import type { VideoStatus, VideoTask } from './video-task';

/** The status `task` shows at time `now`: PENDING, then RUNNING, then its outcome. */
export function videoStatusAt(task: VideoTask, now: number): VideoStatus {
  if (now >= task.endsAt) return task.outcome;
  if (now >= task.scheduledAt) return 'RUNNING';
  return 'PENDING';
}

/** A task's end time as it was when queued: cancel moves `endsAt` and must not disturb the heap order. */
interface EndEntry {
  endsAt: number;
  task: VideoTask;
}

interface Bucket {
  active: number;
  ends: MinHeap<EndEntry>;
}

/**
 * The sim's video tasks: a Map in submission order (so expiry pops from the front, never scans), and
 * per key+model a heap of end times, so the running-task count costs O(log n) per finished task.
 */
export class VideoTaskStore {
  private readonly tasks = new Map<string, VideoTask>();
  private readonly buckets = new Map<string, Bucket>();

  /** `journal`: where every change is recorded (SIM_STATE_FILE); none = memory only. */
  constructor(
    private readonly ttlMs: number,
    private readonly journal?: TaskJournal,
  ) {}

  /** Takes back the tasks of a previous run (in submission order); unfinished ones count as running again. */
  restore(tasks: VideoTask[], now: number): void {
    for (const task of tasks) {
      this.tasks.set(task.id, task);
      task.counted = false;
      if (task.endsAt > now) {
        const bucket = this.bucket(task.apiKey, task.model);
        task.counted = true;
        bucket.active += 1;
        bucket.ends.push({ endsAt: task.endsAt, task });
      }
    }
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Stores a new task (submitted now) and counts it as running for its key and model. */
  add(task: VideoTask): void {
    this.sweep(task.submittedAt);
    this.tasks.set(task.id, task);
    const bucket = this.bucket(task.apiKey, task.model);
    task.counted = true;
    bucket.active += 1;
    bucket.ends.push({ endsAt: task.endsAt, task });
    this.journal?.put(task);
  }

  /** The task, or undefined when unknown or older than the retention (the vendor then says UNKNOWN). */
  get(id: string, now: number): VideoTask | undefined {
    this.sweep(now);
    const task = this.tasks.get(id);
    if (!task || now - task.submittedAt >= this.ttlMs) return undefined;
    return task;
  }

  /** Every task still retained at `now`, oldest first. */
  *all(now: number): IterableIterator<VideoTask> {
    this.sweep(now);
    yield* this.tasks.values();
  }

  /** Tasks of `apiKey` and `model` that have not finished at `now`. */
  running(apiKey: string, model: string, now: number): number {
    const bucket = this.buckets.get(bucketKey(apiKey, model));
    if (!bucket) return 0;
    this.prune(bucket, now);
    return bucket.active;
  }

  /** Unfinished tasks over every key and model. */
  runningTotal(now: number): number {
    let total = 0;
    for (const bucket of this.buckets.values()) {
      this.prune(bucket, now);
      total += bucket.active;
    }
    return total;
  }

  /** Ends `task` as CANCELED at `now` and frees its running slot. */
  cancel(task: VideoTask, now: number): void {
    task.outcome = 'CANCELED';
    task.code = undefined;
    task.message = undefined;
    task.scheduledAt = now;
    task.endsAt = now;
    this.release(task);
    this.journal?.put(task);
  }

  clear(): void {
    this.tasks.clear();
    this.buckets.clear();
    this.journal?.clear();
  }

  /** Forgets tasks past the retention; they were inserted in time order, so this stops at the first young one. */
  private sweep(now: number): void {
    for (const [id, task] of this.tasks) {
      if (now - task.submittedAt < this.ttlMs) break;
      this.tasks.delete(id);
      this.release(task);
    }
  }

  private release(task: VideoTask): void {
    if (!task.counted) return;
    task.counted = false;
    const bucket = this.buckets.get(bucketKey(task.apiKey, task.model));
    if (bucket) bucket.active -= 1;
  }

  private prune(bucket: Bucket, now: number): void {
    for (let top = bucket.ends.peek(); top && top.endsAt <= now; top = bucket.ends.peek()) {
      bucket.ends.pop();
      if (top.task.counted) {
        top.task.counted = false;
        bucket.active -= 1;
      }
    }
  }

  private bucket(apiKey: string, model: string): Bucket {
    const key = bucketKey(apiKey, model);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { active: 0, ends: new MinHeap<EndEntry>((e) => e.endsAt) };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

function bucketKey(apiKey: string, model: string): string {
  return `${apiKey}\n${model}`;
}
