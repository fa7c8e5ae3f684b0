import { loadConfig } from '@mediagate/shared/config';
import { ConfigError } from '@mediagate/shared/errors';
import { imageSettleAfterMs } from '@mediagate/shared/images';
import { loadWorkerConfig, workerEnvSchema } from './config';

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

describe('production start-up (NODE_ENV=production, as the image sets it)', () => {
  const complete = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://mediagate@pgbouncer:5432/mediagate',
    REDIS_URL: 'redis://redis:6379',
    MEDIA_SIGNING_SECRET: 'x'.repeat(40),
    PUBLIC_BASE_URL: 'https://mediagate.example.com',
    MEDIA_DRIVER: 's3',
    MEDIA_S3_BUCKET: 'media',
  };

  it('names every missing variable in one error, invalid ones and the media volume with them', () => {
    let message = '';
    try {
      loadWorkerConfig(['--role=video'], { NODE_ENV: 'production', LOG_LEVEL: 'loud' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'MEDIA_SIGNING_SECRET',
      'PUBLIC_BASE_URL',
      'LOG_LEVEL',
      'MEDIA_DIR',
    ]) {
      expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    }
    expect(message).toMatch(/6 variable\(s\) to fix/);
  });

  it('starts with them set (S3, or a local driver on an absolute path), and asks nothing outside production', () => {
    expect(loadWorkerConfig(['--role=video'], complete).MEDIA_DRIVER).toBe('s3');
    const local = { ...complete, MEDIA_DRIVER: 'local', MEDIA_DIR: '/media' };
    expect(loadWorkerConfig(['--role=video'], local).MEDIA_DIR).toBe('/media');
    expect(() => loadWorkerConfig([], { ...local, MEDIA_DIR: 'media' })).toThrow(
      /MEDIA_DIR: with MEDIA_DRIVER=local/,
    );
    expect(loadWorkerConfig([], {}).DATABASE_URL).toMatch(/^postgres:/);
    // a callbacks dispatcher sends payloads made before: no media settings asked of it
    const { DATABASE_URL, REDIS_URL } = complete;
    expect(
      loadWorkerConfig(['--role=callbacks'], { NODE_ENV: 'production', DATABASE_URL, REDIS_URL }).WORKER_ROLE,
    ).toEqual(['callbacks']);
  });
});
