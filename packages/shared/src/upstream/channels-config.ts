import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { intFromEnv } from '../config/env';
import { ConfigError } from '../errors';

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');

/** One way to reach a vendor: its base URL and key, with a share of the traffic. */
export const channelConfigSchema = z.strictObject({
  /** stored on video tasks (tasks.upstream_channel): keep it stable while tasks run on it */
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - (at most 64)'),
  vendor: z.enum(['ark', 'dashscope']),
  baseUrl: httpUrl,
  apiKey: z.string().min(1),
  /** share of traffic among available channels of the same priority */
  weight: z.number().int().min(1).max(1000).default(1),
  /** lower goes first; a higher priority is only used when every lower one failed or is cooling down */
  priority: z.number().int().min(0).max(100).default(0),
  /** informational (logs, status) */
  region: z.string().min(1).max(64).optional(),
  /** hosts (`host` or `host:port`) this vendor serves result media from; default: the base URL's host */
  mediaHosts: z
    .array(z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'a host or host:port'))
    .max(20)
    .optional(),
});
export type ChannelConfig = z.output<typeof channelConfigSchema>;

/** Environment of every process that calls vendors. */
export const upstreamEnvSchema = z.object({
  DASHSCOPE_BASE_URL: httpUrl.default('http://127.0.0.1:8090'),
  DASHSCOPE_API_KEY: z.string().min(1).default('sk-sim-local'),
  ARK_BASE_URL: httpUrl.default('http://127.0.0.1:8090'),
  ARK_API_KEY: z.string().min(1).default('sk-sim-local'),
  /** JSON array of channels; a vendor it leaves out keeps its single channel from the variables above */
  UPSTREAM_CHANNELS: z.string().min(1).optional(),
  /** a file holding that JSON array instead (for keys kept out of the environment) */
  UPSTREAM_CHANNELS_FILE: z.string().min(1).optional(),
  /** consecutive failures (5xx, connection, timeout, 401/403) that take a channel out */
  UPSTREAM_BREAKER_FAILURES: intFromEnv(5, 1),
  /** how long a channel taken out stays out before one trial request may use it again */
  UPSTREAM_BREAKER_COOLDOWN_MS: intFromEnv(30_000, 1),
  /**
   * upstream task queries per second, fleet-wide per channel (vendor limit: 20; queries, batch
   * queries and the API's cancels share it); 0 = unlimited
   */
  UPSTREAM_POLL_QPS: intFromEnv(20, 0),
});
export type UpstreamEnv = z.output<typeof upstreamEnvSchema>;

/** The names of the channels built from the single-channel variables. */
export const DEFAULT_CHANNEL_NAMES = { dashscope: 'dashscope-default', ark: 'ark-default' } as const;

/**
 * The channels of this deployment: UPSTREAM_CHANNELS (or the file UPSTREAM_CHANNELS_FILE), plus one
 * channel from DASHSCOPE_* / ARK_* for each vendor the list leaves out. Throws ConfigError naming
 * the variable and the entry when the JSON is unreadable, invalid, or repeats a name.
 */
export function channelsFromEnv(env: Omit<UpstreamEnv, 'UPSTREAM_POLL_QPS'>): ChannelConfig[] {
  if (env.UPSTREAM_CHANNELS && env.UPSTREAM_CHANNELS_FILE) {
    throw new ConfigError('set UPSTREAM_CHANNELS or UPSTREAM_CHANNELS_FILE, not both');
  }
  const source = env.UPSTREAM_CHANNELS ? 'UPSTREAM_CHANNELS' : 'UPSTREAM_CHANNELS_FILE';
  let text = env.UPSTREAM_CHANNELS;
  if (env.UPSTREAM_CHANNELS_FILE) {
    try {
      text = readFileSync(env.UPSTREAM_CHANNELS_FILE, 'utf8');
    } catch (err) {
      throw new ConfigError(`UPSTREAM_CHANNELS_FILE: ${(err as Error).message}`);
    }
  }
  let listed: ChannelConfig[] = [];
  if (text !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`${source}: not valid JSON (${(err as Error).message})`);
    }
    const parsed = z.array(channelConfigSchema).min(1).safeParse(raw);
    if (!parsed.success) {
      const where = (path: readonly PropertyKey[]) =>
        source + path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      const lines = parsed.error.issues.map((i) => `  ${where(i.path)}: ${i.message}`);
      throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
    }
    listed = parsed.data;
  }
  const channels = [...listed];
  if (!listed.some((c) => c.vendor === 'dashscope')) {
    channels.push({
      name: DEFAULT_CHANNEL_NAMES.dashscope,
      vendor: 'dashscope',
      baseUrl: env.DASHSCOPE_BASE_URL,
      apiKey: env.DASHSCOPE_API_KEY,
      weight: 1,
      priority: 0,
    });
  }
  if (!listed.some((c) => c.vendor === 'ark')) {
    channels.push({
      name: DEFAULT_CHANNEL_NAMES.ark,
      vendor: 'ark',
      baseUrl: env.ARK_BASE_URL,
      apiKey: env.ARK_API_KEY,
      weight: 1,
      priority: 0,
    });
  }
  const seen = new Set<string>();
  for (const c of channels) {
    if (seen.has(c.name)) throw new ConfigError(`${source}: channel name '${c.name}' is used twice`);
    seen.add(c.name);
  }
  return channels;
}
