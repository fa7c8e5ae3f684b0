import type { Logger } from 'pino';
import { UpstreamError } from '../errors';
import type { ChannelConfig } from './channels-config';
import type { Vendor } from './vendor-http';

export interface BreakerOptions {
  /** consecutive channel faults that take a channel out */
  failureThreshold: number;
  /** how long it stays out before one trial request may use it */
  cooldownMs: number;
}

interface ChannelState {
  config: ChannelConfig;
  consecutiveFailures: number;
  /** epoch ms until which the channel is not used (cool-down, or a vendor Retry-After) */
  outUntil: number;
  /** the circuit opened: the next request after the cool-down is a single trial */
  halfOpen: boolean;
  trialInFlight: boolean;
  /** why it is out: a 429 (rate limited) or a fault */
  outReason?: 'rate_limited' | 'fault';
}

export interface ChannelStatus {
  name: string;
  vendor: Vendor;
  region?: string;
  state: 'closed' | 'open' | 'half_open' | 'throttled';
  consecutiveFailures: number;
  outUntil?: number;
}

/**
 * A fault of the channel itself rather than of the request: the next channel may do better, and
 * enough of them in a row take the channel out. 5xx, connection failures and timeouts, a key the
 * vendor refuses (401/403) and an upstream account in arrears.
 */
export function isChannelFault(err: UpstreamError): boolean {
  const { status, code } = err.details;
  if (status === undefined) return code !== 'too_large';
  return status >= 500 || status === 401 || status === 403 || code === 'Arrearage';
}

/**
 * Whether another channel may succeed where this one failed: a channel fault, a 429, or a 404
 * (a model not enabled on this channel's account). A 400 is the request's fault everywhere.
 */
export function shouldFailOver(err: UpstreamError): boolean {
  return isChannelFault(err) || err.details.status === 429 || err.details.status === 404;
}

/**
 * The error to report after every channel was tried: a 429 only when every channel answered 429
 * (then the longest Retry-After), otherwise the last other failure.
 */
function finalError(errors: readonly UpstreamError[]): UpstreamError {
  const others = errors.filter((e) => e.details.status !== 429);
  if (others.length > 0) return others[others.length - 1]!;
  return errors.reduce((a, b) => ((b.details.retryAfterMs ?? 0) > (a.details.retryAfterMs ?? 0) ? b : a));
}

/**
 * The configured channels of every vendor, with a circuit breaker each. Picks the channels to try
 * (lowest priority first, weighted random within a priority, channels that are out skipped), runs a
 * call with fail-over, and takes a channel out for a cool-down after `failureThreshold` consecutive
 * faults; after the cool-down one trial request decides whether it comes back. A vendor 429 with
 * Retry-After takes the channel out for that long (at most the cool-down). State is per process.
 */
export class ChannelPool {
  private readonly states = new Map<string, ChannelState>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly logger?: Logger;

  constructor(
    channels: readonly ChannelConfig[],
    private readonly opts: BreakerOptions & { logger?: Logger; now?: () => number; random?: () => number },
  ) {
    for (const config of channels) {
      if (this.states.has(config.name)) throw new Error(`channel name '${config.name}' is used twice`);
      this.states.set(config.name, {
        config,
        consecutiveFailures: 0,
        outUntil: 0,
        halfOpen: false,
        trialInFlight: false,
      });
    }
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.logger = opts.logger;
  }

  /** The channel called `name`, whatever its health (a running video task stays on its channel). */
  get(name: string): ChannelConfig | undefined {
    return this.states.get(name)?.config;
  }

  /** Every channel's base URL, whatever its health. */
  baseUrls(): string[] {
    return [...this.states.values()].map((s) => s.config.baseUrl);
  }

  private available(s: ChannelState, now: number): boolean {
    return s.outUntil <= now && !(s.halfOpen && s.trialInFlight);
  }

  /** The vendor's channels usable now, in the order to try them. */
  candidates(vendor: Vendor): ChannelConfig[] {
    const now = this.now();
    return [...this.states.values()]
      .filter((s) => s.config.vendor === vendor && this.available(s, now))
      .map((s) => ({ s, key: this.random() ** (1 / s.config.weight) }))
      .sort((a, b) => a.s.config.priority - b.s.config.priority || b.key - a.key)
      .map(({ s }) => s.config);
  }

  /**
   * Claims the channel for one attempt. False when it is out, or when it is on trial and the trial
   * request is already under way. Every claim ends with succeeded(), failed() or release().
   */
  acquire(name: string): boolean {
    const s = this.states.get(name);
    if (!s || !this.available(s, this.now())) return false;
    if (s.halfOpen) s.trialInFlight = true;
    return true;
  }

  /** Ends a claim without a verdict (the attempt never reached the vendor). */
  release(name: string): void {
    const s = this.states.get(name);
    if (s) s.trialInFlight = false;
  }

  /** The channel answered: it is healthy (closes its circuit). */
  succeeded(name: string): void {
    const s = this.states.get(name);
    if (!s) return;
    if (s.halfOpen) this.logger?.info({ channel: name }, 'upstream channel is back');
    // A vendor's Retry-After still holds; a cool-down ends with the first success (a trial, or a
    // poll of a video task that stays on this channel).
    if (s.outReason !== 'rate_limited') {
      s.outUntil = 0;
      s.outReason = undefined;
    }
    Object.assign(s, { consecutiveFailures: 0, halfOpen: false, trialInFlight: false });
  }

  /** Records how a call through the channel failed; only channel faults count against it. */
  failed(name: string, err: UpstreamError): void {
    const s = this.states.get(name);
    if (!s) return;
    s.trialInFlight = false;
    const now = this.now();
    if (err.details.status === 429) {
      const wait = Math.min(err.details.retryAfterMs ?? 0, this.opts.cooldownMs);
      if (wait > 0 && now + wait > s.outUntil) {
        s.outUntil = now + wait;
        s.outReason = 'rate_limited';
      }
      return;
    }
    if (!isChannelFault(err)) {
      // An answer such as a 400 shows the channel works.
      if (!s.halfOpen) s.consecutiveFailures = 0;
      return;
    }
    s.consecutiveFailures += 1;
    if (s.halfOpen || s.consecutiveFailures >= this.opts.failureThreshold) {
      s.halfOpen = true;
      s.outUntil = now + this.opts.cooldownMs;
      s.outReason = 'fault';
      this.logger?.error(
        {
          channel: name,
          vendor: s.config.vendor,
          failures: s.consecutiveFailures,
          status: err.details.status,
          code: err.details.code,
          cooldownMs: this.opts.cooldownMs,
        },
        'upstream channel taken out for a cool-down',
      );
    }
  }

  /** Why no channel of `vendor` can be used now, as the error a caller reports (429 when all are rate limited). */
  unavailableError(vendor: Vendor): UpstreamError {
    const now = this.now();
    const out = [...this.states.values()].filter((s) => s.config.vendor === vendor);
    if (out.length === 0) {
      return new UpstreamError(`no ${vendor} channel is configured`, { vendor, retryable: false });
    }
    const until = Math.min(...out.map((s) => s.outUntil));
    const limited = out.every((s) => s.outReason === 'rate_limited');
    return new UpstreamError(`every ${vendor} channel is ${limited ? 'rate limited' : 'cooling down'}`, {
      vendor,
      status: limited ? 429 : 503,
      code: 'no_channel_available',
      retryable: true,
      notCreated: true,
      retryAfterMs: Math.max(1, until - now),
    });
  }

  /**
   * Runs `attempt` on the vendor's channels in order until one succeeds. An UpstreamError that
   * `failOver(err)` accepts (default shouldFailOver) moves on to the next channel; any other error
   * is thrown at once (an error that is not an UpstreamError gives no verdict on the channel: its
   * claim is released). After the last channel, throws the most telling failure (see finalError),
   * or unavailableError() when no channel could be tried. Each channel is tried at most once.
   */
  async call<T>(
    vendor: Vendor,
    attempt: (channel: ChannelConfig) => Promise<T>,
    failOver: (err: UpstreamError) => boolean = shouldFailOver,
  ): Promise<T> {
    const errors: UpstreamError[] = [];
    for (const channel of this.candidates(vendor)) {
      if (!this.acquire(channel.name)) continue;
      try {
        const result = await attempt(channel);
        this.succeeded(channel.name);
        return result;
      } catch (err) {
        if (!(err instanceof UpstreamError)) {
          this.release(channel.name);
          throw err;
        }
        this.failed(channel.name, err);
        if (!failOver(err)) throw err;
        errors.push(err);
        this.logger?.warn(
          { channel: channel.name, vendor, status: err.details.status, code: err.details.code },
          'upstream channel failed; trying the next one',
        );
      }
    }
    throw errors.length > 0 ? finalError(errors) : this.unavailableError(vendor);
  }

  /** Every channel's breaker state (for logs and health pages; never the key). */
  status(): ChannelStatus[] {
    const now = this.now();
    return [...this.states.values()].map((s) => ({
      name: s.config.name,
      vendor: s.config.vendor,
      region: s.config.region,
      state:
        s.outUntil > now
          ? s.outReason === 'rate_limited'
            ? 'throttled'
            : 'open'
          : s.halfOpen
            ? 'half_open'
            : 'closed',
      consecutiveFailures: s.consecutiveFailures,
      outUntil: s.outUntil > now ? s.outUntil : undefined,
    }));
  }
}
