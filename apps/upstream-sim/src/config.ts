import { intFromEnv } from '@mediagate/shared/config';
import { z } from 'zod';

const DAY_MS = 24 * 60 * 60_000;

/** Environment of the simulator process. Every variable has a default, so `{}` is a valid config. */
export const simEnvSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SIM_PORT: intFromEnv(8090, 0),
  /** listen address: loopback by default; `0.0.0.0` only where the network in front is trusted */
  SIM_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * the control API's token (`/_control/*`: faults, outcomes, limits, reset), sent as
   * `Authorization: Bearer <token>`; unset = the control API answers 403
   */
  SIM_CONTROL_TOKEN: z
    .union([z.literal(''), z.string().min(16, 'must be at least 16 characters')])
    .optional()
    .transform((v) => v || undefined),
  /** base of the media URLs the sim returns; unset = http://127.0.0.1:<the port that took the request> */
  SIM_PUBLIC_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** how long a new video task stays PENDING, then RUNNING */
  SIM_VIDEO_PENDING_MS: intFromEnv(2_000, 0),
  /** one duration (`5000`) or a range each task draws its own from, uniformly (`30000-180000`) */
  SIM_VIDEO_RUNNING_MS: z
    .string()
    .default('5000')
    .transform((s, ctx) => {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(s);
      const min = m ? Number(m[1]) : Number.NaN;
      const max = m?.[2] !== undefined ? Number(m[2]) : min;
      if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min) {
        ctx.addIssue({ code: 'custom', message: 'must be milliseconds (5000) or a range (30000-180000)' });
        return z.NEVER;
      }
      return { min, max };
    }),
  /** accepted upstream keys, comma-separated; empty = any non-empty Bearer key */
  SIM_API_KEYS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k.length > 0),
    ),
  /** DashScope video submissions per second per key (0 = unlimited) */
  SIM_DASHSCOPE_SUBMIT_RPS: intFromEnv(5, 0),
  /**
   * DashScope task queries per second per key: one-task queries, task lists and cancels together,
   * answered 429 Throttling.RateQuota over it, as the vendor does (0 = unlimited)
   */
  SIM_DASHSCOPE_QUERY_QPS: intFromEnv(20, 0),
  /** unfinished DashScope video tasks per key per model (0 = unlimited) */
  SIM_DASHSCOPE_MAX_RUNNING: intFromEnv(5, 0),
  /** Ark image requests per minute per key (0 = unlimited) */
  SIM_ARK_RPM: intFromEnv(0, 0),
  /** a task older than this answers UNKNOWN and is forgotten (the vendor keeps tasks 24 h) */
  SIM_TASK_TTL_MS: intFromEnv(DAY_MS, 1),
  /** file where video tasks are kept, so a restarted simulator finishes them; unset = memory only */
  SIM_STATE_FILE: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined)),
});

export type SimConfig = z.output<typeof simEnvSchema>;

/** Timing of new video tasks; the control API changes it at run time. */
export interface VideoTiming {
  pendingMs: number;
  /** how long a task runs; with `runningMaxMs` each task draws its own from [runningMs, runningMaxMs] */
  runningMs: number;
  runningMaxMs?: number;
}

/** Rate limits; the control API changes them at run time. 0 means unlimited. */
export interface SimLimits {
  dashscopeSubmitRps: number;
  dashscopeMaxRunning: number;
  dashscopeQueryQps: number;
  arkRpm: number;
}

export function timingFromConfig(config: SimConfig): VideoTiming {
  const { min, max } = config.SIM_VIDEO_RUNNING_MS;
  return {
    pendingMs: config.SIM_VIDEO_PENDING_MS,
    runningMs: min,
    ...(max > min ? { runningMaxMs: max } : {}),
  };
}

export function limitsFromConfig(config: SimConfig): SimLimits {
  return {
    dashscopeSubmitRps: config.SIM_DASHSCOPE_SUBMIT_RPS,
    dashscopeMaxRunning: config.SIM_DASHSCOPE_MAX_RUNNING,
    dashscopeQueryQps: config.SIM_DASHSCOPE_QUERY_QPS,
    arkRpm: config.SIM_ARK_RPM,
  };
}

/** A new task's running time under `timing`: fixed, or drawn uniformly from the range. */
export function drawRunningMs(timing: VideoTiming, random: () => number = Math.random): number {
  const max = timing.runningMaxMs ?? timing.runningMs;
  if (max <= timing.runningMs) return timing.runningMs;
  return timing.runningMs + Math.floor(random() * (max - timing.runningMs + 1));
}
