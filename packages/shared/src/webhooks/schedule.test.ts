import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_SCHEDULE, durationListFromEnv, judgeAttempt, parseDurationList } from './schedule';
import { generateWebhookSecret, signWebhook } from './signing';

describe('retry schedule', () => {
  it('parses the default schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    const h = 3_600_000;
    expect(parseDurationList(DEFAULT_RETRY_SCHEDULE)).toEqual([
      5_000,
      300_000,
      1_800_000,
      2 * h,
      5 * h,
      10 * h,
      14 * h,
      20 * h,
      24 * h,
    ]);
    expect(parseDurationList('20ms, 1.5s, 40')).toEqual([20, 1_500, 40]);
    expect(() => parseDurationList('5 minutes')).toThrow(/not a duration/);
    expect(durationListFromEnv('1s').safeParse('x').success).toBe(false);
  });

  const policy = { scheduleMs: [1_000, 10_000, 100_000], jitter: 0.2, retryAfterMaxMs: 50_000 };

  it('succeeds on any 2xx only', () => {
    for (const s of [200, 201, 204, 299])
      expect(judgeAttempt(policy, 1, { statusCode: s }).kind).toBe('succeeded');
    for (const s of [100, 301, 302, 304, 400, 404, 500])
      expect(judgeAttempt(policy, 1, { statusCode: s }).kind).toBe('retry');
  });

  it('retries on the schedule with jitter, then fails after the last step', () => {
    expect(judgeAttempt(policy, 1, { statusCode: 500 }, () => 0)).toEqual({ kind: 'retry', delayMs: 800 });
    expect(judgeAttempt(policy, 1, { statusCode: 500 }, () => 1)).toEqual({ kind: 'retry', delayMs: 1_200 });
    expect(judgeAttempt(policy, 3, { statusCode: null }, () => 0.5)).toEqual({
      kind: 'retry',
      delayMs: 100_000,
    });
    expect(judgeAttempt(policy, 4, { statusCode: 500 })).toEqual({
      kind: 'failed',
      reason: 'retry schedule exhausted',
    });
  });

  it('stops at once on 410 Gone and on a refused address', () => {
    expect(judgeAttempt(policy, 1, { statusCode: 410 }).kind).toBe('failed');
    expect(judgeAttempt(policy, 1, { statusCode: null, blocked: true }).kind).toBe('failed');
  });

  it('honours Retry-After on 429 and 503, within the first step and the cap', () => {
    expect(judgeAttempt(policy, 2, { statusCode: 429, retryAfterMs: 3_000 })).toEqual({
      kind: 'retry',
      delayMs: 3_000,
    });
    expect(judgeAttempt(policy, 1, { statusCode: 503, retryAfterMs: 0 })).toEqual({
      kind: 'retry',
      delayMs: 1_000,
    });
    expect(judgeAttempt(policy, 1, { statusCode: 503, retryAfterMs: 3_600_000 })).toEqual({
      kind: 'retry',
      delayMs: 50_000,
    });
    // other statuses ignore it
    expect(judgeAttempt(policy, 1, { statusCode: 500, retryAfterMs: 30_000 }, () => 0.5)).toEqual({
      kind: 'retry',
      delayMs: 1_000,
    });
  });
});

describe('signing', () => {
  it('produces Standard Webhooks headers that the standardwebhooks package verifies', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'video.succeeded', data: { id: 'task_1' } });
    const headers = signWebhook([secret], 'msg_1', new Date(), body);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
  });

  it('signs with every secret during a rotation; each one verifies alone', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = '{"x":1}';
    const headers = signWebhook([newSecret, oldSecret], 'msg_2', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual({ x: 1 });
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual({ x: 1 });
  });
});
