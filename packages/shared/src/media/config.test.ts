import { z } from 'zod';
import { loadConfig } from '../config/env';
import { ConfigError } from '../errors';
import { mediaEnvSchema, refineMediaEnv } from './config';
import { createMediaLinkSigner } from './create-storage';

const schema = mediaEnvSchema.superRefine(refineMediaEnv);
const SECRET = 'a-signing-secret-of-at-least-32-characters';

describe('the media signing secret', () => {
  const nodeEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = nodeEnv;
  });
  const withNodeEnv = (value: string | undefined, fn: () => void) => {
    if (value === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = value;
    fn();
  };

  it.each([
    ['unset', undefined],
    ['production', 'production'],
    ['staging', 'staging'],
  ])('is required when NODE_ENV is %s: the process refuses to start', (_name, value) => {
    withNodeEnv(value, () => {
      expect(() => loadConfig(schema, {})).toThrow(ConfigError);
      expect(() => loadConfig(schema, {})).toThrow(
        /MEDIA_SIGNING_SECRET: required unless NODE_ENV=development/,
      );
      // (production also wants the local driver's directory absolute: a mounted volume)
      const env = { MEDIA_SIGNING_SECRET: SECRET, MEDIA_DIR: '/media' };
      expect(loadConfig(schema, env).MEDIA_SIGNING_SECRET).toBe(SECRET);
    });
  });

  it.each(['development', 'test'])('may be left unset when NODE_ENV=%s', (value) => {
    withNodeEnv(value, () => {
      expect(loadConfig(schema, {}).MEDIA_SIGNING_SECRET).toBeUndefined();
    });
  });

  it('the development secret is announced in the log whenever it signs; a configured one is not', () => {
    const warnings: string[] = [];
    const logger = { warn: (msg: string) => void warnings.push(msg) };
    const env = loadConfig(z.object(mediaEnvSchema.shape), {});
    createMediaLinkSigner(env, logger as never);
    expect(warnings).toEqual([expect.stringMatching(/MEDIA_SIGNING_SECRET is not set.*forge/)]);
    createMediaLinkSigner({ ...env, MEDIA_SIGNING_SECRET: SECRET }, logger as never);
    expect(warnings).toHaveLength(1);
  });
});
