import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { drawRunningMs } from './config';
import { parseVideoRequest } from './dashscope-video-request';
import { passFaults } from './faults';
import { countRejected, dashscopeTime, publicBase, requireKey } from './http-helpers';
import type { SimState } from './state';
import { dashscopeError, dashscopeRequestId } from './vendor-errors';
import type { VideoStatus, VideoTask } from './video-task';
import { videoStatusAt } from './video-tasks';

export const VIDEO_CREATE_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';

const rejectKey = (missing: boolean) =>
  dashscopeError(401, 'InvalidApiKey', missing ? 'No API-key provided.' : 'Invalid API-key provided.');

const throttled = () =>
  dashscopeError(429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');

/** The task APIs (query, list, cancel) share one per-key budget of queries per second. */
function takeQuery(state: SimState, key: string, now: number): void {
  if (state.queryLimiter.tryTake(key, now)) return;
  state.counters.video.query_throttled += 1;
  state.countQuery(key, 'throttled', now);
  throw throttled();
}

/** DashScope asynchronous image-to-video (spec section A): create, query, list, cancel. */
export function register(router: Router, state: SimState): void {
  router.use(
    VIDEO_CREATE_PATH,
    countRejected(() => {
      state.counters.video.rejected += 1;
    }),
  );
  router.post(VIDEO_CREATE_PATH, async (req, res) => {
    try {
      await passFaults(state.faults, 'video.submit');
      const key = requireKey(req, state, rejectKey);
      if (String(req.headers['x-dashscope-async'] ?? '').toLowerCase() !== 'enable') {
        throw dashscopeError(403, 'AccessDenied', 'current user api does not support synchronous calls');
      }
      const request = parseVideoRequest(req.body);
      const now = Date.now();
      if (!state.submitLimiter.tryTake(key, now)) {
        state.counters.video.throttled += 1;
        throw throttled();
      }
      const maxRunning = state.limits.dashscopeMaxRunning;
      if (maxRunning > 0 && state.tasks.running(key, request.model, now) >= maxRunning) {
        state.counters.video.throttled += 1;
        throw dashscopeError(
          429,
          'Throttling.AllocationQuota',
          'Allocated quota exceeded, please increase your quota limit.',
        );
      }
      const task = newTask(state, key, request, now);
      state.tasks.add(task);
      state.counters.video.submitted += 1;
      res.json({ output: { task_id: task.id, task_status: 'PENDING' }, request_id: dashscopeRequestId() });
    } catch (err) {
      state.counters.video.rejected += 1;
      throw err;
    }
  });

  router.get('/api/v1/tasks', async (req, res) => {
    await passFaults(state.faults, 'video.query');
    const key = requireKey(req, state, rejectKey);
    const now = Date.now();
    takeQuery(state, key, now);
    state.counters.video.listed += 1;
    state.countQuery(key, 'listed', now);
    res.json(listTasks(state, key, req.query as Record<string, unknown>, now));
  });

  router.get('/api/v1/tasks/:taskId', async (req, res) => {
    await passFaults(state.faults, 'video.query');
    const key = requireKey(req, state, rejectKey);
    const now = Date.now();
    takeQuery(state, key, now);
    const taskId = req.params.taskId;
    const task = state.tasks.get(taskId, now);
    state.counters.video.queried += 1;
    state.countQuery(key, 'queried', now, task !== undefined && task.apiKey !== key);
    if (!task) {
      res.json({ request_id: dashscopeRequestId(), output: { task_id: taskId, task_status: 'UNKNOWN' } });
      return;
    }
    const view = taskView(task, now, req, state);
    if (task.endAnsweredAt === undefined && now >= task.endsAt) task.endAnsweredAt = now;
    res.json(view);
  });

  router.post('/api/v1/tasks/:taskId/cancel', async (req, res) => {
    await passFaults(state.faults, 'video.cancel');
    const key = requireKey(req, state, rejectKey);
    const now = Date.now();
    takeQuery(state, key, now);
    const task = state.tasks.get(req.params.taskId, now);
    if (!task || videoStatusAt(task, now) !== 'PENDING') {
      throw dashscopeError(
        400,
        'UnsupportedOperation',
        'Failed to cancel the task, please confirm if the task is in PENDING status.',
      );
    }
    state.tasks.cancel(task, now);
    state.counters.video.canceled += 1;
    res.json({ request_id: dashscopeRequestId() });
  });
}

function newTask(
  state: SimState,
  apiKey: string,
  request: ReturnType<typeof parseVideoRequest>,
  now: number,
): VideoTask {
  const { pendingMs } = state.timing;
  const runningMs = drawRunningMs(state.timing);
  const planned = state.takeOutcome();
  const scheduledAt = now + pendingMs;
  const task: VideoTask = {
    id: randomUUID(),
    apiKey,
    model: request.model,
    resolution: request.resolution,
    duration: request.duration,
    audio: request.audio,
    parameters: request.parameters,
    submittedAt: now,
    scheduledAt,
    // A task planned to be CANCELED never runs: it ends when it would have left the queue.
    endsAt: planned?.outcome === 'CANCELED' ? scheduledAt : scheduledAt + runningMs,
    outcome: planned?.outcome ?? 'SUCCEEDED',
    counted: false,
  };
  if (request.prompt !== undefined) task.prompt = request.prompt;
  if (planned?.outcome === 'FAILED') {
    task.code = planned.code ?? 'InternalError';
    task.message =
      planned.message ?? 'An internal error has occured, please try again later or contact service support.';
  } else if (planned) {
    if (planned.code !== undefined) task.code = planned.code;
    if (planned.message !== undefined) task.message = planned.message;
  }
  return task;
}

/** The query answer for `task` at `now`, shaped like the vendor's. */
function taskView(task: VideoTask, now: number, req: Request, state: SimState): Record<string, unknown> {
  const status = videoStatusAt(task, now);
  const output: Record<string, unknown> = {
    task_id: task.id,
    task_status: status,
    submit_time: dashscopeTime(task.submittedAt),
  };
  const ran = task.scheduledAt < task.endsAt;
  if (status !== 'PENDING' && ran) output.scheduled_time = dashscopeTime(task.scheduledAt);
  if (status === 'PENDING' || status === 'RUNNING') return { request_id: dashscopeRequestId(), output };

  output.end_time = dashscopeTime(task.endsAt);
  if (task.prompt !== undefined) output.orig_prompt = task.prompt;
  if (status !== 'SUCCEEDED') {
    if (task.code !== undefined) output.code = task.code;
    if (task.message !== undefined) output.message = task.message;
    return { request_id: dashscopeRequestId(), output };
  }
  output.video_url = `${publicBase(req, state.config)}/media/videos/${task.id}.mp4`;
  const sr = task.resolution === '720P' ? 720 : 1080;
  return {
    request_id: dashscopeRequestId(),
    output,
    // The vendor is not consistent about types here: SR often arrives as a string.
    usage: {
      duration: state.reportedDuration ?? task.duration,
      input_video_duration: 0,
      output_video_duration: state.reportedDuration ?? task.duration,
      video_count: 1,
      SR: String(sr),
      size: sr === 720 ? '1280*720' : '1920*1080',
      audio: task.audio,
    },
  };
}

const DAY_MS = 24 * 3_600_000;
const LIST_STATUSES = new Set<string>(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'UNKNOWN']);
const invalid = (message: string) => dashscopeError(400, 'InvalidParameter', message);

/** `YYYYMMDDhhmmss` in the vendor's time zone (UTC+8, as its other times), as epoch milliseconds. */
function parseListTime(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const m = typeof value === 'string' ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value) : null;
  const ms = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) - 8 * 3_600_000 : Number.NaN;
  const roundTrip = Number.isFinite(ms)
    ? new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '')
    : '';
  if (!m || roundTrip !== value) {
    throw invalid(`${name} must be formatted as YYYYMMDDhhmmss.`);
  }
  return ms;
}

function positiveInt(value: unknown, name: string, def: number): number {
  if (value === undefined || value === '') return def;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw invalid(`${name} must be a positive integer.`);
  return n;
}

/**
 * The batch task query: the key's tasks created in [start_time, end_time] (at most 24 hours apart;
 * by default the last 24 hours), filtered by task_id, model_name and status, newest first, by page.
 */
function listTasks(state: SimState, key: string, q: Record<string, unknown>, now: number) {
  let start = parseListTime(q.start_time, 'start_time');
  let end = parseListTime(q.end_time, 'end_time');
  if (start === undefined && end === undefined) end = now;
  if (start === undefined) start = end! - DAY_MS;
  if (end === undefined) end = start + DAY_MS;
  if (end < start || end - start > DAY_MS) {
    throw invalid('The interval between start_time and end_time must not exceed 24 hours.');
  }
  // The times have a resolution of one second: the window includes the whole end second.
  end += 999;
  const status = q.status === undefined || q.status === '' ? undefined : String(q.status).toUpperCase();
  if (status !== undefined && !LIST_STATUSES.has(status)) throw invalid('status is not a task status.');
  const model = q.model_name === undefined || q.model_name === '' ? undefined : String(q.model_name);
  const taskId = q.task_id === undefined || q.task_id === '' ? undefined : String(q.task_id);
  const pageNo = positiveInt(q.page_no, 'page_no', 1);
  const pageSize = positiveInt(q.page_size, 'page_size', 10);

  const matched: Array<{ task: VideoTask; status: VideoStatus }> = [];
  for (const task of state.tasks.all(now)) {
    if (task.apiKey !== key || task.submittedAt < start || task.submittedAt > end) continue;
    if (taskId !== undefined && task.id !== taskId) continue;
    if (model !== undefined && task.model !== model) continue;
    const s = videoStatusAt(task, now);
    if (status !== undefined && s !== status) continue;
    matched.push({ task, status: s });
  }
  matched.reverse();
  const data = matched.slice((pageNo - 1) * pageSize, pageNo * pageSize).map(({ task, status: s }) => {
    const entry: Record<string, unknown> = {
      api_key_id: 'sim',
      caller_parent_id: 'sim',
      caller_uid: 'sim',
      gmt_create: task.submittedAt,
      model_name: task.model,
      region: 'cn-beijing',
      request_id: task.id,
      status: s,
      task_id: task.id,
      user_api_unique_key: `apikey:v1:aigc:image2video:video-synthesis:${task.model}`,
    };
    if (s !== 'PENDING' && task.scheduledAt < task.endsAt) entry.start_time = task.scheduledAt;
    if (s !== 'PENDING' && s !== 'RUNNING') entry.end_time = task.endsAt;
    return entry;
  });
  return {
    request_id: dashscopeRequestId(),
    data,
    total: matched.length,
    total_page: Math.ceil(matched.length / pageSize),
    page_no: pageNo,
    page_size: pageSize,
  };
}
