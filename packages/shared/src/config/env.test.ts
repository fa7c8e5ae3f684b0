import { ConfigError } from '../errors';
import { baseEnvSchema, loadConfig } from './env';

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig(baseEnvSchema, {})).toMatchObject({ QUEUE_PREFIX: '{mediagate}', LOG_LEVEL: 'info' });
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
});
