import { ConfigError } from '../errors';
import { z } from 'zod';
import { baseEnvSchema, configIssues, loadConfig } from './env';

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

describe('one start-up error naming everything to fix', () => {
  const schema = baseEnvSchema
    .extend({ MODE: z.enum(['a', 'b']).default('a'), NEEDS: z.string().optional() })
    .superRefine((env, ctx) => {
      if (env.MODE === 'b' && !env.NEEDS)
        ctx.addIssue({ code: 'custom', path: ['NEEDS'], message: 'required with MODE=b' });
    });
  const required = { DATABASE_URL: 'the Postgres URL', REDIS_URL: 'the Redis URL' };

  it('lists wrong fields, cross-field checks and production requirements together', () => {
    const env = { NODE_ENV: 'production', LOG_LEVEL: 'loud', MODE: 'b' };
    const issues = configIssues(schema, env, { requiredInProduction: required });
    expect(issues.map((i) => i.name).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'NEEDS', 'REDIS_URL']);
    expect(() => loadConfig(schema, env, { requiredInProduction: required })).toThrow(
      /4 variable\(s\) to fix[\s\S]*DATABASE_URL: required in production: the Postgres URL/,
    );
  });

  it('requires the production variables only with NODE_ENV=production', () => {
    expect(configIssues(schema, {}, { requiredInProduction: required })).toEqual([]);
    expect(
      configIssues(
        schema,
        { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r:6379' },
        { requiredInProduction: required },
      ),
    ).toEqual([]);
    expect(
      configIssues(
        schema,
        { NODE_ENV: 'production', DATABASE_URL: ' ' },
        { requiredInProduction: required },
      ).map((i) => i.name),
    ).toEqual(['DATABASE_URL', 'REDIS_URL']);
  });
});
