import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { VideoTask } from './video-task';

/**
 * The video tasks of the simulator on disk (SIM_STATE_FILE), so that a restarted simulator still
 * knows the tasks it accepted and finishes them on their original schedule, as a vendor does. The
 * file is a journal of JSON lines: `put` (a task as it now is: new or canceled) and `clear`.
 * Every change is appended synchronously, so an answered submission is on disk.
 */
export class TaskJournal {
  constructor(private readonly file: string) {}

  /**
   * The tasks recorded and still retained at `now` (younger than `ttlMs`), in submission order. The
   * file is rewritten with only them. A torn last line (a crash mid-write) is skipped.
   */
  load(ttlMs: number, now: number): VideoTask[] {
    const tasks = new Map<string, VideoTask>();
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        let entry: { op?: string; task?: VideoTask };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.op === 'clear') tasks.clear();
        else if (entry.op === 'put' && entry.task?.id)
          tasks.set(entry.task.id, { ...entry.task, counted: false });
      }
    }
    const live = [...tasks.values()].filter((t) => now - t.submittedAt < ttlMs);
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, live.map((task) => `${JSON.stringify({ op: 'put', task })}\n`).join(''));
    renameSync(tmp, this.file);
    return live;
  }

  put(task: VideoTask): void {
    const { counted: _counted, ...rest } = task;
    appendFileSync(this.file, `${JSON.stringify({ op: 'put', task: rest })}\n`);
  }

  clear(): void {
    appendFileSync(this.file, `${JSON.stringify({ op: 'clear' })}\n`);
  }
}
