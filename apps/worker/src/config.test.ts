import { loadConfig } from '@mediagate/shared/config';
import { ConfigError } from '@mediagate/shared/errors';
import { imageSettleAfterMs } from '@mediagate/shared/images';
import { workerEnvSchema } from './config';

describe('image settlement configuration (reconciler)', () => {
  it('defaults the sweep bound to 5 minutes past the longest image call', () => {
    const c = loadConfig(workerEnvSchema, {});
    expect(c.IMAGE_CALL_TIMEOUT_MS).toBe(600_000);
    expect(imageSettleAfterMs(c)).toBe(900_000);
    expect(imageSettleAfterMs(loadConfig(workerEnvSchema, { IMAGE_CALL_TIMEOUT_MS: '5000' }))).toBe(305_000);
    expect(imageSettleAfterMs(loadConfig(workerEnvSchema, { IMAGE_SETTLE_AFTER_MS: '700000' }))).toBe(
      700_000,
    );
  });

  it.each([
    [{ IMAGE_SETTLE_AFTER_MS: '600000' }],
    [{ IMAGE_SETTLE_AFTER_MS: '5000', IMAGE_CALL_TIMEOUT_MS: '8000' }],
    [{ IMAGE_SETTLE_AFTER_MS: 'soon' }],
  ])('refuses a bound that does not outlast the call (%j) and names it', (env) => {
    expect(() => loadConfig(workerEnvSchema, env)).toThrow(ConfigError);
    expect(() => loadConfig(workerEnvSchema, env)).toThrow('IMAGE_SETTLE_AFTER_MS');
  });
});
