import { loadConfig } from '@mediagate/shared/config';
import { ConfigError } from '@mediagate/shared/errors';
import { workerEnvSchema } from '../config';

describe('callbacks configuration', () => {
  it('defaults to the documented schedule, timeouts and limits, with nothing opened by the SSRF guard', () => {
    const c = loadConfig(workerEnvSchema, {});
    expect(c.CALLBACK_RETRY_SCHEDULE).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
    ]);
    expect(c).toMatchObject({
      CALLBACK_RETRY_JITTER: 0.2,
      CALLBACK_TIMEOUT_MS: 15_000,
      CALLBACK_RESPONSE_MAX_BYTES: 4_096,
      SSRF_ALLOW_CIDRS: '',
      WEBHOOK_ENDPOINT_DISABLE_AFTER: [5 * 86_400_000],
    });
    expect(
      loadConfig(workerEnvSchema, { WEBHOOK_ENDPOINT_DISABLE_AFTER: '12h' }).WEBHOOK_ENDPOINT_DISABLE_AFTER,
    ).toEqual([12 * 3_600_000]);
    expect(loadConfig(workerEnvSchema, { WORKER_ROLE: 'video,callbacks' }).WORKER_ROLE).toEqual([
      'video',
      'callbacks',
    ]);
  });

  it.each([
    ['CALLBACK_RETRY_SCHEDULE', '5 minutes'],
    ['CALLBACK_RETRY_JITTER', '2'],
    ['CALLBACK_TIMEOUT_MS', '0'],
    ['SSRF_ALLOW_CIDRS', '10.0.0.0/99'],
    ['WEBHOOK_ENDPOINT_DISABLE_AFTER', '5d,1h'],
    ['WEBHOOK_ENDPOINT_DISABLE_AFTER', 'forever'],
    ['WEBHOOK_ENDPOINT_DISABLE_AFTER', '0s'],
  ])('refuses a wrong %s and names it', (name, value) => {
    expect(() => loadConfig(workerEnvSchema, { [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig(workerEnvSchema, { [name]: value })).toThrow(name);
  });
});
