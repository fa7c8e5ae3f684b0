import { ConfigError } from '../errors';
import { baseEnvSchema, loadConfig } from './env';

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig(baseEnvSchema, {})).toMatchObject({ QUEUE_PREFIX: 'mediagate', LOG_LEVEL: 'info' });
  });
  it('names every wrong variable', () => {
    expect(() => loadConfig(baseEnvSchema, { DATABASE_URL: 'nope', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    try {
      loadConfig(baseEnvSchema, { DATABASE_URL: 'nope', LOG_LEVEL: 'loud' });
    } catch (err) {
      expect((err as Error).message).toMatch(/DATABASE_URL/);
      expect((err as Error).message).toMatch(/LOG_LEVEL/);
    }
  });
  it('keeps idle Postgres connections 5 minutes by default (DATABASE_POOL_IDLE_MS; 0: for good)', () => {
    expect(loadConfig(baseEnvSchema, {}).DATABASE_POOL_IDLE_MS).toBe(300_000);
    expect(loadConfig(baseEnvSchema, { DATABASE_POOL_IDLE_MS: '0' }).DATABASE_POOL_IDLE_MS).toBe(0);
    for (const bad of ['-1', 'long', '1.5']) {
      expect(() => loadConfig(baseEnvSchema, { DATABASE_POOL_IDLE_MS: bad })).toThrow(
        /DATABASE_POOL_IDLE_MS/,
      );
    }
  });
  it('reads DATABASE_POOL_MAX as a bounded integer, unset by default', () => {
    expect(loadConfig(baseEnvSchema, {}).DATABASE_POOL_MAX).toBeUndefined();
    expect(loadConfig(baseEnvSchema, { DATABASE_POOL_MAX: '12' }).DATABASE_POOL_MAX).toBe(12);
    for (const bad of ['1', 'many', '2.5', '5000']) {
      expect(() => loadConfig(baseEnvSchema, { DATABASE_POOL_MAX: bad })).toThrow(/DATABASE_POOL_MAX/);
    }
  });
});
