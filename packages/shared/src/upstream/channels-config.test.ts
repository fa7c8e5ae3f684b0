import { loadConfig } from '../config/env';
import { ConfigError } from '../errors';
import { channelsFromEnv, upstreamEnvSchema } from './channels-config';

const env = (vars: Record<string, string>) => loadConfig(upstreamEnvSchema, vars);

describe('channel configuration', () => {
  it('defaults to one channel per vendor from the single-channel variables', () => {
    expect(channelsFromEnv(env({ ARK_BASE_URL: 'https://ark.example', ARK_API_KEY: 'ak' }))).toEqual([
      expect.objectContaining({
        name: 'dashscope-default',
        vendor: 'dashscope',
        baseUrl: 'http://127.0.0.1:8090',
      }),
      expect.objectContaining({
        name: 'ark-default',
        vendor: 'ark',
        baseUrl: 'https://ark.example',
        apiKey: 'ak',
      }),
    ]);
  });

  it('takes a JSON list; a vendor it leaves out keeps its default channel', () => {
    const channels = channelsFromEnv(
      env({
        UPSTREAM_CHANNELS: JSON.stringify([
          {
            name: 'ark-a',
            vendor: 'ark',
            baseUrl: 'https://a.example',
            apiKey: 'x',
            weight: 3,
            region: 'cn',
          },
          { name: 'ark-b', vendor: 'ark', baseUrl: 'https://b.example', apiKey: 'y', priority: 1 },
        ]),
      }),
    );
    expect(channels.map((c) => [c.name, c.weight, c.priority])).toEqual([
      ['ark-a', 3, 0],
      ['ark-b', 1, 1],
      ['dashscope-default', 1, 0],
    ]);
  });

  it.each([
    ['bad JSON', '[{', /UPSTREAM_CHANNELS: not valid JSON/],
    [
      'a bad URL',
      JSON.stringify([{ name: 'a', vendor: 'ark', baseUrl: 'ftp://x', apiKey: 'k' }]),
      /UPSTREAM_CHANNELS\[0\]\.baseUrl/,
    ],
    [
      'an unknown vendor',
      JSON.stringify([{ name: 'a', vendor: 'openai', baseUrl: 'http://x', apiKey: 'k' }]),
      /\[0\]\.vendor/,
    ],
    [
      'a repeated name',
      JSON.stringify([
        { name: 'a', vendor: 'ark', baseUrl: 'http://x', apiKey: 'k' },
        { name: 'a', vendor: 'ark', baseUrl: 'http://y', apiKey: 'k' },
      ]),
      /'a' is used twice/,
    ],
  ])('refuses %s with a ConfigError naming the variable', (_n, value, message) => {
    expect(() => channelsFromEnv(env({ UPSTREAM_CHANNELS: value }))).toThrow(ConfigError);
    expect(() => channelsFromEnv(env({ UPSTREAM_CHANNELS: value }))).toThrow(message);
  });
});
