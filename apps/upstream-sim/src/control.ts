import { bearerMatches } from '@mediagate/shared/metrics';
import express, { type Router } from 'express';
import { z } from 'zod';
import type { VideoTiming } from './config';
import { FAULT_APIS } from './faults';
import type { SimState } from './state';
import { controlError } from './vendor-errors';
import { videoStatusAt } from './video-tasks';

const faultSchema = z
  .object({
    api: z.enum(FAULT_APIS),
    status: z.number().int().min(400).max(599).optional(),
    code: z.string().min(1).optional(),
    message: z.string().min(1).optional(),
    count: z.number().int().min(1).optional(),
    rate: z.number().min(0).max(1).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    outage: z.boolean().optional(),
    retryAfterSeconds: z.number().int().min(0).optional(),
  })
  .strict()
  .refine(
    (f) => f.count !== undefined || f.rate !== undefined || f.outage === true || f.latencyMs !== undefined,
    {
      message: 'a fault needs count, rate, outage or latencyMs',
    },
  );

const outcomeSchema = z
  .object({
    outcome: z.enum(['FAILED', 'CANCELED']),
    code: z.string().min(1).optional(),
    message: z.string().min(1).optional(),
    count: z.number().int().min(1).default(1),
  })
  .strict();

const timingSchema = z
  .object({
    pendingMs: z.number().int().min(0).optional(),
    runningMs: z.number().int().min(0).optional(),
    /** with it, each new task draws its running time from [runningMs, runningMaxMs]; null = fixed */
    runningMaxMs: z.number().int().min(0).nullable().optional(),
  })
  .strict();

const itemFailuresSchema = z.object({ count: z.number().int().min(0) }).strict();

const limitsSchema = z
  .object({
    dashscopeSubmitRps: z.number().int().min(0).optional(),
    dashscopeMaxRunning: z.number().int().min(0).optional(),
    dashscopeQueryQps: z.number().int().min(0).optional(),
    arkRpm: z.number().int().min(0).optional(),
  })
  .strict();

const videoMediaSchema = z
  .object({
    linksExpired: z.boolean().optional(),
    sizeBytes: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31)
      .nullable()
      .optional(),
    bytesPerSecond: z.number().int().min(1).nullable().optional(),
  })
  .strict();

const videoUsageSchema = z.object({ reportedDuration: z.number().min(0).max(600).nullable() }).strict();

const faultApiQuery = z.object({ api: z.enum(FAULT_APIS).optional() });

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  throw controlError(400, 'invalid_control_request', detail);
}

/**
 * The test and benchmark control API under `/_control`: counters, reset, fault injection, planned
 * video outcomes, task timing, Ark item failures, rate limits, task inspection. See apps/upstream-sim/README.md. Only
 * with `Authorization: Bearer <SIM_CONTROL_TOKEN>` (401 otherwise; 403 when no token is set).
 */
export function register(router: Router, state: SimState, token: string | undefined): void {
  const control = express.Router();
  control.use((req, _res, next) => {
    if (!token) {
      return next(
        controlError(
          403,
          'control_disabled',
          'The control API is off: start the simulator with SIM_CONTROL_TOKEN set.',
        ),
      );
    }
    if (!bearerMatches(req.headers.authorization, token)) {
      return next(
        controlError(
          401,
          'invalid_control_token',
          'Send the control token as Authorization: Bearer <SIM_CONTROL_TOKEN>.',
        ),
      );
    }
    next();
  });
  control.use(express.json({ limit: '1mb' }));

  control.get('/stats', (_req, res) => {
    res.json(state.stats(Date.now()));
  });

  control.post('/reset', (_req, res) => {
    state.reset();
    res.json({ ok: true });
  });

  control.get('/faults', (_req, res) => {
    res.json({ faults: state.faults.list() });
  });
  control.post('/faults', (req, res) => {
    const fault = state.faults.add(parse(faultSchema, req.body));
    res.json({ fault, faults: state.faults.list() });
  });
  control.delete('/faults', (req, res) => {
    state.faults.clear(parse(faultApiQuery, req.query).api);
    res.json({ faults: state.faults.list() });
  });

  control.get('/video-outcomes', (_req, res) => {
    res.json({ planned: state.plannedOutcomes() });
  });
  control.post('/video-outcomes', (req, res) => {
    const { count, ...plan } = parse(outcomeSchema, req.body);
    state.planOutcome({ ...plan, remaining: count });
    res.json({ planned: state.plannedOutcomes() });
  });
  control.delete('/video-outcomes', (_req, res) => {
    state.clearOutcomes();
    res.json({ planned: [] });
  });

  control.get('/video-timing', (_req, res) => {
    res.json(state.timing);
  });
  control.post('/video-timing', (req, res) => {
    const { runningMaxMs, ...rest } = parse(timingSchema, req.body);
    const next: VideoTiming = { ...state.timing, ...rest };
    if (runningMaxMs === null) delete next.runningMaxMs;
    else if (runningMaxMs !== undefined) next.runningMaxMs = runningMaxMs;
    if (next.runningMaxMs !== undefined && next.runningMaxMs < next.runningMs) {
      throw controlError(400, 'invalid_control_request', 'runningMaxMs: must not be below runningMs');
    }
    state.timing = next;
    res.json(state.timing);
  });

  control.get('/video-media', (_req, res) => {
    res.json(state.videoMedia);
  });
  control.post('/video-media', (req, res) => {
    state.videoMedia = { ...state.videoMedia, ...parse(videoMediaSchema, req.body) };
    res.json(state.videoMedia);
  });

  control.get('/video-usage', (_req, res) => {
    res.json({ reportedDuration: state.reportedDuration });
  });
  control.post('/video-usage', (req, res) => {
    state.reportedDuration = parse(videoUsageSchema, req.body).reportedDuration;
    res.json({ reportedDuration: state.reportedDuration });
  });

  control.get('/ark-item-failures', (_req, res) => {
    res.json({ pending: state.pendingArkItemFailures });
  });
  control.post('/ark-item-failures', (req, res) => {
    state.setArkItemFailures(parse(itemFailuresSchema, req.body).count);
    res.json({ pending: state.pendingArkItemFailures });
  });

  control.get('/limits', (_req, res) => {
    res.json(state.limits);
  });
  control.post('/limits', (req, res) => {
    res.json(state.setLimits(parse(limitsSchema, req.body)));
  });

  control.get('/tasks/:taskId', (req, res) => {
    const now = Date.now();
    const task = state.tasks.get(req.params.taskId, now);
    if (!task) throw controlError(404, 'not_found', `No task ${req.params.taskId}.`);
    res.json({
      task_id: task.id,
      model: task.model,
      status: videoStatusAt(task, now),
      outcome: task.outcome,
      prompt: task.prompt ?? null,
      parameters: task.parameters,
      submitted_at: new Date(task.submittedAt).toISOString(),
      scheduled_at: new Date(task.scheduledAt).toISOString(),
      ends_at: new Date(task.endsAt).toISOString(),
      end_answered_at: task.endAnsweredAt === undefined ? null : new Date(task.endAnsweredAt).toISOString(),
    });
  });

  router.use('/_control', control);
}
