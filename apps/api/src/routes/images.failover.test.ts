import { findLedgerMismatches } from '@mediagate/shared/billing';
import { freePort, type RunningSim, startUpstreamSim, waitFor } from '@mediagate/shared/testing';
import { call, expectError, IMG, startTestApi, type TestApi } from '../../test/harness';
import { balanceOf, simChannels } from '../../test/images';
import type { ApiConfig } from '../config';

// Two simulators: channels ark-0/dashscope-0 on A (tried first), ark-1/dashscope-1 on B.
let a: RunningSim;
let b: RunningSim;
const apis: TestApi[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startUpstreamSim(), startUpstreamSim()]);
});
afterAll(async () => {
  await Promise.all(apis.map((x) => x.close()));
  await Promise.all([a?.stop(), b?.stop()]);
});
beforeEach(() => Promise.all([a.control('POST', '/reset'), b.control('POST', '/reset')]));

async function apiWith(config: Partial<ApiConfig>, sims = [a, b]) {
  const api = await startTestApi({ UPSTREAM_CHANNELS: simChannels(sims), ...config });
  apis.push(api);
  const { key, accountId } = await api.account(10);
  const generate = (json: unknown) => call(api, 'POST', '/v1/images/generations', { key, json });
  return { api, key, accountId, generate };
}
const SEEDREAM = { model: 'seedream-4.0', prompt: 'a harbour at night', size: '1K' };
const EDIT = { model: 'qwen-image-edit', prompt: 'make it snow', image: IMG };
const arkSeen = async (sim: RunningSim) => {
  const s = (await sim.stats()).ark_images;
  return { calls: s.calls, rejected: s.rejected };
};

describe('fail-over between channels', () => {
  let ctx: Awaited<ReturnType<typeof apiWith>>;
  beforeAll(async () => {
    // a cool-down of 1 ms: these tests look at one request at a time, not at the breaker
    ctx = await apiWith({ UPSTREAM_BREAKER_COOLDOWN_MS: 1 });
  });
  afterEach(async () => {
    expect(await findLedgerMismatches(ctx.api.database.db)).toEqual([]);
  });

  it.each([
    [429, 'RateLimitExceeded.EndpointRPMExceeded'],
    [503, 'ServiceUnavailable'],
    [500, 'InternalServiceError'],
  ])('an Ark %i on the first channel is answered by the second', async (status, code) => {
    await a.fault({ api: 'ark_images', status, code, count: 1 });
    const res = await ctx.generate({ ...SEEDREAM, n: 2 });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { data: Array<{ url: string }> }).data.map((d) => d.url.startsWith(b.url)),
    ).toEqual([true, true]);
    expect(await arkSeen(a)).toEqual({ calls: 0, rejected: 1 });
    expect(await arkSeen(b)).toEqual({ calls: 1, rejected: 0 });
  });

  it.each([429, 503])('a DashScope %i on the first channel is answered by the second', async (status) => {
    await a.fault({ api: 'image_edit', status, count: 1 });
    const res = await ctx.generate(EDIT);
    expect(res.status).toBe(200);
    expect((await a.stats()).image_edit).toMatchObject({ calls: 0, rejected: 1 });
    expect((await b.stats()).image_edit).toMatchObject({ calls: 1, rejected: 0 });
  });

  it('does not fail over a vendor 400: the request is wrong on every channel', async () => {
    await a.fault({
      api: 'ark_images',
      status: 400,
      code: 'InvalidParameter',
      message: 'bad prompt',
      count: 1,
    });
    await expectError(await ctx.generate(SEEDREAM), 400, 'invalid_request');
    expect(await arkSeen(b)).toEqual({ calls: 0, rejected: 0 });
  });

  it('with every channel down: 500 server_error, everything refunded, nothing else', async () => {
    await a.fault({ api: 'ark_images', outage: true });
    await b.fault({ api: 'ark_images', outage: true });
    const before = await balanceOf(ctx.api, ctx.accountId);
    const res = await ctx.generate({ ...SEEDREAM, n: 3 });
    const err = await expectError(res, 500, 'server_error');
    expect(err.message).not.toMatch(/ServiceUnavailable|sk-/);
    expect(await balanceOf(ctx.api, ctx.accountId)).toBe(before);
    expect(await arkSeen(a)).toEqual({ calls: 0, rejected: 1 });
    expect(await arkSeen(b)).toEqual({ calls: 0, rejected: 1 });
  });

  it('with every channel rate limited: 429 rate_limit_exceeded with the longest Retry-After', async () => {
    await a.fault({ api: 'image_edit', status: 429, count: 1, retryAfterSeconds: 2 });
    await b.fault({ api: 'image_edit', status: 429, count: 1, retryAfterSeconds: 5 });
    const res = await ctx.generate(EDIT);
    expect(res.headers.get('retry-after')).toBe('5');
    await expectError(res, 429, 'rate_limit_exceeded');
  });

  it('mixed failures report the fault, not the rate limit', async () => {
    await a.fault({ api: 'ark_images', status: 429, count: 1 });
    await b.fault({ api: 'ark_images', status: 502, count: 1 });
    await expectError(await ctx.generate(SEEDREAM), 500, 'server_error');
  });
});

describe('circuit breaker', () => {
  it('takes a failing channel out for its cool-down, so requests stop reaching it', async () => {
    const ctx = await apiWith({ UPSTREAM_BREAKER_FAILURES: 3, UPSTREAM_BREAKER_COOLDOWN_MS: 60_000 });
    await a.fault({ api: 'ark_images', outage: true });
    for (let i = 0; i < 6; i++) expect((await ctx.generate(SEEDREAM)).status).toBe(200);
    expect(await arkSeen(a)).toEqual({ calls: 0, rejected: 3 });
    expect(await arkSeen(b)).toEqual({ calls: 6, rejected: 0 });
    // the DashScope channel of the same simulator is a channel of its own and still in use
    expect((await ctx.generate(EDIT)).status).toBe(200);
    expect((await a.stats()).image_edit.calls).toBe(1);
  });

  it('brings a channel back after its cool-down when the trial request succeeds', async () => {
    const ctx = await apiWith({ UPSTREAM_BREAKER_FAILURES: 1, UPSTREAM_BREAKER_COOLDOWN_MS: 300 });
    await a.fault({ api: 'ark_images', status: 500, count: 1 });
    expect((await ctx.generate(SEEDREAM)).status).toBe(200); // a fails, b answers; a is out
    expect((await ctx.generate(SEEDREAM)).status).toBe(200); // b again
    expect(await arkSeen(a)).toEqual({ calls: 0, rejected: 1 });
    const statuses = new Set<number>();
    await waitFor(
      async () => {
        statuses.add((await ctx.generate(SEEDREAM)).status);
        return (await arkSeen(a)).calls === 1;
      },
      { what: 'channel a to be tried again after its cool-down', timeoutMs: 10_000, intervalMs: 50 },
    );
    expect([...statuses]).toEqual([200]);
  });
});

describe('transport failures', () => {
  it('fails over a refused connection', async () => {
    const dead = { url: `http://127.0.0.1:${await freePort()}` };
    const ctx = await apiWith({}, [dead as RunningSim, b]);
    expect((await ctx.generate(SEEDREAM)).status).toBe(200);
    expect((await ctx.generate(EDIT)).status).toBe(200);
  });

  it('times out a slow channel and fails over; times out everything with a 500', async () => {
    const ctx = await apiWith({ IMAGE_UPSTREAM_TIMEOUT_MS: 400 });
    await a.fault({ api: 'ark_images', latencyMs: 3_000, count: 1 });
    expect((await ctx.generate(SEEDREAM)).status).toBe(200);
    await a.fault({ api: 'image_edit', latencyMs: 3_000, count: 1 });
    await b.fault({ api: 'image_edit', latencyMs: 3_000, count: 1 });
    const before = await balanceOf(ctx.api, ctx.accountId);
    const err = await expectError(await ctx.generate(EDIT), 500, 'server_error');
    expect(err.message).toMatch(/did not answer in time/);
    expect(await balanceOf(ctx.api, ctx.accountId)).toBe(before);
  });

  it('refuses an upstream answer over the size limit', async () => {
    const ctx = await apiWith({ UPSTREAM_MAX_RESPONSE_BYTES: 4_096 });
    const before = await balanceOf(ctx.api, ctx.accountId);
    await expectError(
      await ctx.generate({
        model: 'seedream-3.0',
        prompt: 'x',
        response_format: 'b64_json',
        size: '1024x1024',
      }),
      500,
      'server_error',
    );
    expect(await balanceOf(ctx.api, ctx.accountId)).toBe(before);
  });
});
