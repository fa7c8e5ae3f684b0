import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { parseVideoRequest } from './dashscope-video-request';
import { passFaults } from './faults';
import { countRejected, dashscopeTime, publicBase, requireKey } from './http-helpers';
import type { SimState } from './state';
import { dashscopeError, dashscopeRequestId } from './vendor-errors';
import { type VideoTask, videoStatusAt } from './video-tasks';

export const VIDEO_CREATE_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';

const rejectKey = (missing: boolean) =>
  dashscopeError(401, 'InvalidApiKey', missing ? 'No API-key provided.' : 'Invalid API-key provided.');

/** DashScope asynchronous image-to-video (spec section A): create, query, cancel. */
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
        throw dashscopeError(
          429,
          'Throttling.RateQuota',
          'Requests rate limit exceeded, please try again later.',
        );
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

  router.get('/api/v1/tasks/:taskId', async (req, res) => {
    await passFaults(state.faults, 'video.query');
    requireKey(req, state, rejectKey);
    const now = Date.now();
    const taskId = req.params.taskId;
    const task = state.tasks.get(taskId, now);
    state.counters.video.queried += 1;
    if (!task) {
      res.json({ request_id: dashscopeRequestId(), output: { task_id: taskId, task_status: 'UNKNOWN' } });
      return;
    }
    res.json(taskView(task, now, req, state));
  });

  router.post('/api/v1/tasks/:taskId/cancel', async (req, res) => {
    await passFaults(state.faults, 'video.cancel');
    requireKey(req, state, rejectKey);
    const now = Date.now();
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
  const { pendingMs, runningMs } = state.timing;
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
