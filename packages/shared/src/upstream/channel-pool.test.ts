import { UpstreamError } from '../errors';
import { ChannelPool } from './channel-pool';
import type { ChannelConfig } from './channels-config';

const channel = (name: string, extra: Partial<ChannelConfig> = {}): ChannelConfig => ({
  name,
  vendor: 'ark',
  baseUrl: `http://${name}.test`,
  apiKey: 'k',
  weight: 1,
  priority: 0,
  ...extra,
});
const upstream = (status: number | undefined, extra: Partial<UpstreamError['details']> = {}) =>
  new UpstreamError(`failed ${status}`, {
    vendor: 'ark',
    status,
    code: status === undefined ? 'connect' : `http_${status}`,
    retryable: status === undefined || status === 429 || status >= 500,
    ...extra,
  });

function pool(channels: ChannelConfig[], opts: { threshold?: number; cooldownMs?: number } = {}) {
  let now = 1_000_000;
  const p = new ChannelPool(channels, {
    failureThreshold: opts.threshold ?? 3,
    cooldownMs: opts.cooldownMs ?? 10_000,
    now: () => now,
  });
  return { p, advance: (ms: number) => (now += ms) };
}

describe('ChannelPool', () => {
  it('orders by priority, then spreads by weight', () => {
    const { p } = pool([
      channel('backup', { priority: 1 }),
      channel('heavy', { weight: 9 }),
      channel('light', { weight: 1 }),
    ]);
    const firsts: Record<string, number> = {};
    for (let i = 0; i < 2000; i++) {
      const order = p.candidates('ark').map((c) => c.name);
      expect(order[2]).toBe('backup');
      firsts[order[0]!] = (firsts[order[0]!] ?? 0) + 1;
    }
    expect(firsts.heavy! / 2000).toBeGreaterThan(0.8);
    expect(firsts.light).toBeGreaterThan(0);
    expect(p.candidates('dashscope')).toEqual([]);
  });

  it('fails over on 429, 5xx and connection errors, not on a 400', async () => {
    const { p } = pool([channel('a'), channel('b', { priority: 1 })]);
    for (const err of [upstream(429), upstream(503), upstream(undefined), upstream(401)]) {
      const seen: string[] = [];
      const out = await p.call('ark', async (c) => {
        seen.push(c.name);
        if (c.name === 'a') throw err;
        return 'ok';
      });
      expect({ out, seen }).toEqual({ out: 'ok', seen: ['a', 'b'] });
    }
    const { p: fresh } = pool([channel('a'), channel('b', { priority: 1 })]);
    const seen: string[] = [];
    await expect(
      fresh.call('ark', async (c) => {
        seen.push(c.name);
        throw upstream(400);
      }),
    ).rejects.toMatchObject({ details: { status: 400 } });
    expect(seen).toEqual(['a']);
  });

  it('reports 429 only when every channel answered 429', async () => {
    const { p } = pool([channel('a'), channel('b', { priority: 1 })]);
    await expect(
      p.call('ark', async (c) => {
        throw upstream(429, { retryAfterMs: c.name === 'a' ? 2_000 : 5_000 });
      }),
    ).rejects.toMatchObject({ details: { status: 429, retryAfterMs: 5_000 } });
    const { p: p2 } = pool([channel('a'), channel('b', { priority: 1 })]);
    await expect(
      p2.call('ark', async (c) => {
        throw c.name === 'a' ? upstream(503) : upstream(429);
      }),
    ).rejects.toMatchObject({ details: { status: 503 } });
  });

  it('takes a channel out after consecutive faults, then lets one trial decide', async () => {
    const { p, advance } = pool([channel('a'), channel('b', { priority: 1 })], { threshold: 3 });
    const seen: string[] = [];
    const failA = (c: ChannelConfig) => {
      seen.push(c.name);
      if (c.name === 'a') return Promise.reject(upstream(500));
      return Promise.resolve(c.name);
    };
    for (let i = 0; i < 3; i++) await p.call('ark', failA);
    expect(seen).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    seen.length = 0;
    await p.call('ark', failA);
    expect(seen).toEqual(['b']); // a is out
    expect(p.status().find((s) => s.name === 'a')?.state).toBe('open');
    advance(10_001);
    expect(p.status().find((s) => s.name === 'a')?.state).toBe('half_open');
    // the trial fails: out again at once, without waiting for three more failures
    seen.length = 0;
    await p.call('ark', failA);
    expect(seen).toEqual(['a', 'b']);
    seen.length = 0;
    await p.call('ark', failA);
    expect(seen).toEqual(['b']);
    advance(10_001);
    // one trial at a time: a second request while the trial runs skips the channel
    let release!: () => void;
    const trial = p.call('ark', (c) =>
      c.name === 'a' ? new Promise<string>((r) => (release = () => r('a'))) : Promise.resolve('b'),
    );
    expect(await p.call('ark', async (c) => c.name)).toBe('b');
    release();
    expect(await trial).toBe('a');
    expect(p.status().find((s) => s.name === 'a')?.state).toBe('closed');
  });

  it('fails over only where the caller says so, and stops at once on an error of the caller', async () => {
    const { p, advance } = pool([channel('a'), channel('b', { priority: 1 })], { threshold: 1 });
    // a submit-once rule: only a failure that certainly created nothing moves on
    const nothingCreated = (err: UpstreamError) => err.details.notCreated === true;
    const seen: string[] = [];
    await expect(
      p.call(
        'ark',
        async (c) => {
          seen.push(c.name);
          throw upstream(503);
        },
        nothingCreated,
      ),
    ).rejects.toMatchObject({ details: { status: 503 } });
    expect(seen).toEqual(['a']);
    // a is out after its one fault; once its cool-down ends, an error of the caller's own (not the
    // vendor's answer) on the trial passes through and frees the trial for the next call
    advance(10_001);
    const halt = new Error('not now');
    await expect(
      p.call('ark', (c) => (c.name === 'a' ? Promise.reject(halt) : Promise.resolve('b'))),
    ).rejects.toBe(halt);
    expect(p.status().find((s) => s.name === 'a')?.state).toBe('half_open');
    expect(await p.call('ark', async (c) => c.name)).toBe('a');
  });

  it('answers a 400 as a sign of health: it does not count towards the breaker', async () => {
    const { p } = pool([channel('a')], { threshold: 2 });
    await expect(p.call('ark', () => Promise.reject(upstream(500)))).rejects.toThrow();
    await expect(p.call('ark', () => Promise.reject(upstream(400)))).rejects.toThrow();
    await expect(p.call('ark', () => Promise.reject(upstream(500)))).rejects.toThrow();
    expect(p.status()[0]?.state).toBe('closed');
  });

  it('keeps a channel out for a vendor Retry-After, and says 429 when all are rate limited', async () => {
    const { p, advance } = pool([channel('a')]);
    await expect(
      p.call('ark', () => Promise.reject(upstream(429, { retryAfterMs: 3_000 }))),
    ).rejects.toThrow();
    expect(p.candidates('ark')).toEqual([]);
    const attempt = jest.fn();
    const err = (await p.call('ark', attempt).catch((e: unknown) => e)) as UpstreamError;
    expect(attempt).not.toHaveBeenCalled();
    expect(err.details).toMatchObject({ status: 429, code: 'no_channel_available', retryAfterMs: 3_000 });
    advance(3_001);
    expect(p.candidates('ark').map((c) => c.name)).toEqual(['a']);
  });

  it('says 503 with the time left when every channel is cooling down', async () => {
    const { p, advance } = pool([channel('a')], { threshold: 1, cooldownMs: 8_000 });
    await expect(p.call('ark', () => Promise.reject(upstream(502)))).rejects.toThrow();
    advance(2_000);
    const err = (await p.call('ark', async () => 'x').catch((e: unknown) => e)) as UpstreamError;
    expect(err.details).toMatchObject({ status: 503, retryAfterMs: 6_000 });
  });
});
