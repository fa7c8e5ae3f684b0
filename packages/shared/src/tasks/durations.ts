import type { RedisClient } from '../queue/connection';
import { redisKey } from '../queue/keys';

/** What the finished tasks of one model have shown: how long the upstream took, in milliseconds. */
export interface DurationSummary {
  /** samples behind the figures (older samples weigh less, see TaskDurations) */
  samples: number;
  meanMs: number;
  /** the duration below which a fraction `p` (0..1) of the tasks finished */
  quantileMs: (p: number) => number;
  /** the fraction of the tasks that finished within `ms` */
  cdf: (ms: number) => number;
}

export interface TaskDurationsOptions {
  /** width of a histogram bucket */
  bucketMs?: number;
  /** durations above this count in the last bucket */
  maxMs?: number;
  /** past this many samples every count is halved, so the figures follow a changing upstream */
  maxSamples?: number;
  /** fewer samples than this give no summary */
  minSamples?: number;
  /** how long a process trusts a summary it has read */
  cacheMs?: number;
}

const FORGET_AFTER_MS = 7 * 24 * 3_600_000;

// Adds one sample (a model unused for ARGV[3] ms is forgotten); past ARGV[2] samples, halves every bucket (dropping empty ones) and recounts.
const RECORD = `
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if n > tonumber(ARGV[2]) then
  local all = redis.call('HGETALL', KEYS[1])
  local total = 0
  for i = 1, #all, 2 do
    if all[i] ~= 'n' then
      local v = math.floor(tonumber(all[i + 1]) / 2)
      if v == 0 then redis.call('HDEL', KEYS[1], all[i]) else redis.call('HSET', KEYS[1], all[i], v) end
      total = total + v
    end
  end
  redis.call('HSET', KEYS[1], 'n', total)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return n`;

/**
 * Learned upstream durations per public model (the model id fixes resolution and duration), shared
 * by every process through Redis: one histogram hash per model, one round trip per finished task.
 * Readers keep a summary for `cacheMs`.
 */
export class TaskDurations {
  private readonly bucketMs: number;
  private readonly buckets: number;
  private readonly maxSamples: number;
  private readonly minSamples: number;
  private readonly cacheMs: number;
  private readonly cache = new Map<
    string,
    { at: number; summary: Promise<DurationSummary | null>; value?: DurationSummary | null }
  >();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    opts: TaskDurationsOptions = {},
  ) {
    this.bucketMs = opts.bucketMs ?? 1_000;
    this.buckets = Math.ceil((opts.maxMs ?? 3_600_000) / this.bucketMs);
    this.maxSamples = opts.maxSamples ?? 2_000;
    this.minSamples = opts.minSamples ?? 5;
    this.cacheMs = opts.cacheMs ?? 5_000;
  }

  private key(model: string): string {
    return redisKey(this.prefix, 'video-durations', model);
  }

  /** Records that a task of `model` took `ms` upstream. */
  async record(model: string, ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) return;
    const bucket = Math.min(Math.floor(ms / this.bucketMs), this.buckets - 1);
    await this.redis.eval(RECORD, 1, this.key(model), `b${bucket}`, this.maxSamples, FORGET_AFTER_MS);
  }

  /** The model's summary, or null while it has fewer than `minSamples` samples. */
  summary(model: string, now = Date.now()): Promise<DurationSummary | null> {
    const hit = this.cache.get(model);
    if (hit && now - hit.at < this.cacheMs) return hit.summary;
    const entry: { at: number; summary: Promise<DurationSummary | null>; value?: DurationSummary | null } = {
      at: now,
      summary: Promise.resolve(null),
      ...(hit && 'value' in hit ? { value: hit.value } : {}),
    };
    entry.summary = this.redis.hgetall(this.key(model)).then(
      (hash) => {
        entry.value = summarize(hash, this.bucketMs, this.minSamples);
        return entry.value;
      },
      () => entry.value ?? null,
    );
    this.cache.set(model, entry);
    return entry.summary;
  }

  /**
   * The last summary this process read, without waiting (undefined when none was read yet); reads
   * a fresh one in the background when it is older than `cacheMs`.
   */
  peek(model: string, now = Date.now()): DurationSummary | null | undefined {
    const hit = this.cache.get(model);
    if (!hit || now - hit.at >= this.cacheMs) void this.summary(model, now);
    return this.cache.get(model)?.value;
  }

  /** Forgets what this process has read. */
  forget(): void {
    this.cache.clear();
  }
}

/** A histogram hash (`n`, `b<bucket>` fields) as a summary; buckets count at their middle. */
export function summarize(
  hash: Record<string, string>,
  bucketMs: number,
  minSamples = 1,
): DurationSummary | null {
  const entries: Array<[number, number]> = [];
  let total = 0;
  let sum = 0;
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith('b')) continue;
    const bucket = Number(field.slice(1));
    const count = Number(value);
    if (!Number.isInteger(bucket) || !(count > 0)) continue;
    entries.push([bucket, count]);
    total += count;
    sum += count * (bucket + 0.5) * bucketMs;
  }
  if (total < minSamples || total === 0) return null;
  entries.sort((a, b) => a[0] - b[0]);
  return {
    samples: total,
    meanMs: sum / total,
    quantileMs: (p: number) => {
      const target = Math.min(Math.max(p, 0), 1) * total;
      let seen = 0;
      for (const [bucket, count] of entries) {
        if (seen + count >= target) {
          // linear within the bucket
          const within = count === 0 ? 0.5 : (target - seen) / count;
          return (bucket + within) * bucketMs;
        }
        seen += count;
      }
      return (entries[entries.length - 1]![0] + 1) * bucketMs;
    },
    cdf: (ms: number) => {
      const at = ms / bucketMs;
      let seen = 0;
      for (const [bucket, count] of entries) {
        if (at < bucket) break;
        if (at < bucket + 1) return (seen + count * (at - bucket)) / total;
        seen += count;
      }
      return seen / total;
    },
  };
}
