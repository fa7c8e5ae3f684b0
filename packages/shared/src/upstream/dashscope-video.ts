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
    return state;
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
