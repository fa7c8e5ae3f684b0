import { z } from 'zod';
import { ConfigError } from '../errors';

export const intFromEnv = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
export const boolFromEnv = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Variables every process reads. Apps extend this with their own. */
export const baseEnvSchema = z.object({
  /** `production` (the image sets it): a process refuses to start until what production needs is set; `development` or `test` allow the development media secret */
  NODE_ENV: z.string().optional(),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/mediagate'),
  /**
   * Most Postgres connections this process opens. Unset: 20 for the API, and for a worker the
   * video concurrency plus 5, at most 30. The fleet's total must stay under the server's
   * max_connections (or the pooler's limit).
   */
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(1000).optional(),
  /**
   * How long a Postgres connection may stay idle in the pool before it is closed (ms; 0: never).
   * Long, because a new connection costs Postgres a process, its caches and every prepared
   * statement again: with pg's 10 s, the pool of a process under steady load kept closing the
   * connections a burst had opened and opening new ones for the next.
   */
  DATABASE_POOL_IDLE_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  /**
   * false for a pooler in transaction mode that cannot carry named prepared statements (PgBouncer
   * before 1.21): every statement is then sent unnamed.
   */
  DATABASE_PREPARED_STATEMENTS: boolFromEnv(true),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** REDIS_URL is a node of a Redis Cluster (the other nodes are discovered from it) */
  REDIS_CLUSTER: boolFromEnv(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Namespace of every Redis key of the deployment (see queue/keys.ts: each queue gets a Redis
   * Cluster hash tag of its own, the other keys none). Braces, which older versions required
   * (`{mediagate}`), are ignored.
   */
  QUEUE_PREFIX: z
    .string()
    .default('mediagate')
    .refine((v) => v.replace(/[{}]/g, '').length > 0, 'must name a namespace (braces aside, it is empty)'),
});

export interface LoadConfigOptions {
  /**
   * Variables whose development default is wrong in production (a local address, a development
   * secret), each with what to set: with NODE_ENV=production each must be set.
   */
  requiredInProduction?: Readonly<Record<string, string>>;
}

/**
 * Parses `env` with `schema`. Throws one ConfigError naming every wrong or missing variable at
 * once (including the cross-field checks, which zod skips while a field is invalid, and the
 * variables production requires), so a process refuses to start with a message the operator can
 * act on in one go.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  opts: LoadConfigOptions = {},
): z.output<S> {
  const issues = configIssues(schema, env, opts);
  const parsed = schema.safeParse(env);
  if (parsed.success && issues.length === 0) return parsed.data;
  const lines = issues.map((i) => `  ${i.name}: ${i.message}`);
  throw new ConfigError(`invalid configuration (${issues.length} variable(s) to fix):\n${lines.join('\n')}`);
}

/** What every process that reaches Postgres and Redis needs in production. */
export const STORES_REQUIRED_IN_PRODUCTION = {
  DATABASE_URL: 'the Postgres URL (or the PgBouncer in front of it)',
  REDIS_URL: 'the Redis URL (a node of the cluster with REDIS_CLUSTER=true)',
} as const;

/** Every problem `loadConfig` would name, without throwing: what a manifest check reads. */
export function configIssues(
  schema: z.ZodType,
  env: NodeJS.ProcessEnv,
  opts: LoadConfigOptions = {},
): Array<{ name: string; message: string }> {
  const out = new Map<string, { name: string; message: string }>();
  // one line per variable: its first problem
  const add = (name: string, message: string) => {
    if (!out.has(name)) out.set(name, { name, message });
  };
  if (env.NODE_ENV === 'production') {
    for (const [name, what] of Object.entries(opts.requiredInProduction ?? {})) {
      if (!env[name]?.trim()) add(name, `required in production: ${what}`);
    }
  }
  const first = schema.safeParse(env);
  if (first.success) return [...out.values()];
  const nameOf = (i: z.core.$ZodIssue) => (i.path.length ? i.path.map(String).join('.') : '(env)');
  for (const i of first.error.issues) add(nameOf(i), i.message);
  // cross-field checks run only once every field parses: check again with the wrong fields left out
  const wrong = new Set(first.error.issues.map((i) => String(i.path[0] ?? '')));
  const rest = Object.fromEntries(Object.entries(env).filter(([k]) => !wrong.has(k)));
  const second = schema.safeParse(rest);
  if (!second.success) {
    for (const i of second.error.issues) if (!wrong.has(String(i.path[0] ?? ''))) add(nameOf(i), i.message);
  }
  return [...out.values()];
}

/**
 * Access to /metrics, API and workers alike: METRICS_TOKEN, when set, must come as
 * `Authorization: Bearer <token>`. At least 16 characters.
 */
export const metricsEnvShape = {
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
};
