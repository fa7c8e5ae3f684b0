import type { Agent } from 'undici';
import { UpstreamError } from '../errors';
import { callVendor, type UpstreamChannel } from './vendor-http';

export interface VideoSubmission {
  model: string;
  input: { prompt: string; img_url: string; negative_prompt?: string; audio_url?: string };
  parameters: {
    resolution: '720P' | '1080P';
    duration: number;
    audio?: boolean;
    prompt_extend?: boolean;
    watermark?: boolean;
    seed?: number;
  };
}

export type UpstreamVideoStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'UNKNOWN';

export interface UpstreamVideoState {
  status: UpstreamVideoStatus;
  videoUrl?: string;
  code?: string;
  message?: string;
  usage?: { duration?: number; video_count?: number; SR?: number; audio?: boolean };
  /** how long the upstream took, from its submit_time to its end_time (a finished task) */
  upstreamMs?: number;
}

/** The batch task query (`GET /api/v1/tasks/`): a window of creation times, at most 24 hours wide. */
export interface UpstreamTaskListQuery {
  startTime?: Date;
  endTime?: Date;
  modelName?: string;
  status?: UpstreamVideoStatus;
  /** 1-based */
  pageNo?: number;
  pageSize?: number;
}

export interface UpstreamTaskListPage {
  tasks: Array<{
    taskId: string;
    status: UpstreamVideoStatus;
    modelName?: string;
    createdAt?: number;
    endedAt?: number;
  }>;
  total: number;
  totalPages: number;
  pageNo: number;
  pageSize: number;
}

const VENDOR = 'dashscope';
const STATUSES = new Set<UpstreamVideoStatus>([
  'PENDING',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'CANCELED',
  'UNKNOWN',
]);

/** The DashScope asynchronous video API (create and query) spoken exactly as the vendor defines it. */
export class DashScopeVideoClient {
  constructor(private readonly agent: Agent) {}

  /** Creates an upstream task. Throws UpstreamError; `notCreated` tells whether a retry is safe. */
  async submit(channel: UpstreamChannel, job: VideoSubmission): Promise<{ taskId: string }> {
    const res = await this.call(
      channel,
      'POST',
      '/api/v1/services/aigc/video-generation/video-synthesis',
      job,
      {
        'X-DashScope-Async': 'enable',
      },
    );
    const taskId = (res as { output?: { task_id?: unknown } }).output?.task_id;
    if (typeof taskId !== 'string' || taskId.length === 0) {
      throw new UpstreamError('upstream answered without a task id', {
        vendor: VENDOR,
        channel: channel.name,
        retryable: false,
      });
    }
    return { taskId };
  }

  /** Reads the upstream task's state. */
  async query(channel: UpstreamChannel, taskId: string): Promise<UpstreamVideoState> {
    const res = (await this.call(channel, 'GET', `/api/v1/tasks/${encodeURIComponent(taskId)}`)) as {
      output?: Record<string, unknown>;
      usage?: Record<string, unknown>;
    };
    const out = res.output ?? {};
    const raw = String(out.task_status ?? 'UNKNOWN').toUpperCase() as UpstreamVideoStatus;
    const status: UpstreamVideoStatus = STATUSES.has(raw) ? raw : 'UNKNOWN';
    const state: UpstreamVideoState = { status };
    if (typeof out.video_url === 'string') state.videoUrl = out.video_url;
    if (out.code !== undefined) state.code = String(out.code);
    if (out.message !== undefined) state.message = String(out.message);
    if (res.usage) state.usage = parseUsage(res.usage);
    const took = vendorTimeMs(out.end_time) - vendorTimeMs(out.submit_time);
    if (Number.isFinite(took) && took >= 0) state.upstreamMs = took;
    return state;
  }

  /**
   * One page of the batch task query: the account's tasks created within the window (the vendor's
   * own documentation: `GET /api/v1/tasks/` with start_time, end_time, model_name, status, page_no,
   * page_size; at most 24 hours between the two times; the same 20 queries per second as a query).
   */
  async list(channel: UpstreamChannel, query: UpstreamTaskListQuery): Promise<UpstreamTaskListPage> {
    const params = new URLSearchParams();
    if (query.startTime) params.set('start_time', listTime(query.startTime));
    if (query.endTime) params.set('end_time', listTime(query.endTime));
    if (query.modelName) params.set('model_name', query.modelName);
    if (query.status) params.set('status', query.status);
    params.set('page_no', String(query.pageNo ?? 1));
    params.set('page_size', String(query.pageSize ?? 10));
    const res = (await this.call(channel, 'GET', `/api/v1/tasks/?${params.toString()}`)) as Record<
      string,
      unknown
    >;
    const data = Array.isArray(res.data) ? (res.data as Array<Record<string, unknown>>) : [];
    const tasks: UpstreamTaskListPage['tasks'] = [];
    for (const entry of data) {
      if (typeof entry?.task_id !== 'string') continue;
      const raw = String(entry.status ?? 'UNKNOWN').toUpperCase() as UpstreamVideoStatus;
      const task: UpstreamTaskListPage['tasks'][number] = {
        taskId: entry.task_id,
        status: STATUSES.has(raw) ? raw : 'UNKNOWN',
      };
      if (typeof entry.model_name === 'string') task.modelName = entry.model_name;
      const created = num(entry.gmt_create);
      const ended = num(entry.end_time);
      if (created !== undefined) task.createdAt = created;
      if (ended !== undefined) task.endedAt = ended;
      tasks.push(task);
    }
    const pageSize = num(res.page_size) ?? query.pageSize ?? 10;
    const total = num(res.total) ?? tasks.length;
    return {
      tasks,
      total,
      totalPages: num(res.total_page) ?? Math.ceil(total / Math.max(pageSize, 1)),
      pageNo: num(res.page_no) ?? query.pageNo ?? 1,
      pageSize,
    };
  }

  /** Asks the upstream to cancel a task (only PENDING tasks can be canceled there). */
  async cancel(channel: UpstreamChannel, taskId: string): Promise<void> {
    await this.call(channel, 'POST', `/api/v1/tasks/${encodeURIComponent(taskId)}/cancel`);
  }

  private call(
    channel: UpstreamChannel,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<unknown> {
    return callVendor(this.agent, channel, { vendor: VENDOR, method, path, body, headers });
  }
}

/** The vendor's task times read as if UTC (`2023-12-20 21:36:31.896`); only differences are used. */
function vendorTimeMs(v: unknown): number {
  if (typeof v !== 'string') return Number.NaN;
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?/.exec(v);
  if (!m) return Number.NaN;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, Number((m[7] ?? '0').padEnd(3, '0')));
}

/** A batch-query time, `YYYYMMDDhhmmss`, in UTC+8 (the zone of the vendor's task times). */
export function listTime(d: Date): string {
  return new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Vendor usage numbers sometimes arrive as strings; read them leniently. */
function parseUsage(u: Record<string, unknown>): UpstreamVideoState['usage'] {
  const usage: NonNullable<UpstreamVideoState['usage']> = {};
  const duration = num(u.duration);
  const count = num(u.video_count);
  const sr = num(u.SR);
  if (duration !== undefined) usage.duration = duration;
  if (count !== undefined) usage.video_count = count;
  if (sr !== undefined) usage.SR = sr;
  if (u.audio !== undefined) usage.audio = u.audio === true || u.audio === 'true';
  return usage;
}
