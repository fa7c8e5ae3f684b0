import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors';
import { defaultCatalog, loadCatalog, toModelObject } from './index';

const file = (content: unknown) => {
  const p = path.join(mkdtempSync(path.join(tmpdir(), 'catalog-')), 'catalog.json');
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

describe('model catalog', () => {
  it('has the image models of the spec with their upstream ids and list prices', () => {
    const c = defaultCatalog();
    expect(c.images().map((m) => [m.id, m.upstreamModel, m.priceMicroUsd])).toEqual([
      ['seedream-4.5', 'doubao-seedream-4-5-251128', 40_000],
      ['seedream-4.0', 'doubao-seedream-4-0-250828', 30_000],
      ['seedream-3.0', 'doubao-seedream-3-0-t2i-250415', 30_000],
      ['qwen-image-edit', 'qwen-image-edit', 45_000],
    ]);
    expect(c.models).toHaveLength(14);
    expect(c.image('wan2.6-i2v-flash-5s-720p')).toBeUndefined();
  });

  it('describes every model in the OpenAI model shape with what it accepts', () => {
    const c = defaultCatalog();
    const img = toModelObject(c.get('seedream-3.0')!);
    expect(img).toMatchObject({
      id: 'seedream-3.0',
      object: 'model',
      owned_by: 'mediagate',
      type: 'image',
      pricing: { unit: 'image', price_micro_usd: 30_000 },
      parameters: { seed: { type: 'integer', min: -1 }, guidance_scale: { min: 1, max: 10 } },
    });
    expect(img.parameters).not.toHaveProperty('sequential_image_generation');
    const video = toModelObject(c.get('wan2.5-i2v-flash-10s-1080p')!);
    expect(video).toMatchObject({
      type: 'video',
      pricing: { unit: 'second', with_audio_micro_usd: 150_000 },
    });
  });

  it('applies a deployment file: prices, removals and additions', () => {
    const c = loadCatalog(
      file({
        models: {
          'seedream-4.5': { priceMicroUsd: 45_000 },
          'seedream-3.0': { enabled: false },
          'wan2.6-i2v-flash-5s-720p': { pricePerSecondMicroUsd: { withAudio: 60_000, silent: 30_000 } },
          'seedream-4.5-intl': { extends: 'seedream-4.5', upstreamModel: 'seedream-4-5-251128' },
        },
      }),
    );
    expect(c.image('seedream-4.5')?.priceMicroUsd).toBe(45_000);
    expect(c.get('seedream-3.0')).toBeUndefined();
    expect(c.video('wan2.6-i2v-flash-5s-720p')?.pricePerSecondMicroUsd.withAudio).toBe(60_000);
    expect(c.image('seedream-4.5-intl')).toMatchObject({
      upstreamModel: 'seedream-4-5-251128',
      priceMicroUsd: 45_000,
    });
    expect(defaultCatalog().image('seedream-4.5')?.priceMicroUsd).toBe(40_000);
  });

  it.each([
    ['unknown id without extends', { models: { 'seedream-9': { priceMicroUsd: 1 } } }, /needs 'extends'/],
    ['extends an unknown model', { models: { x: { extends: 'nope' } } }, /extends unknown model 'nope'/],
    [
      'per-image price on a video',
      { models: { 'wan2.6-i2v-flash-5s-720p': { priceMicroUsd: 1 } } },
      /pricePerSecondMicroUsd/,
    ],
    [
      'a negative price',
      { models: { 'seedream-4.0': { priceMicroUsd: -1 } } },
      /models\.seedream-4\.0\.priceMicroUsd/,
    ],
    ['an unknown field', { models: { 'seedream-4.0': { price: 1 } } }, /price/],
    ['not JSON', '{nope', /MODEL_CATALOG_FILE/],
  ])('refuses %s with a ConfigError naming it', (_name, content, message) => {
    const p = file(content);
    expect(() => loadCatalog(p)).toThrow(ConfigError);
    expect(() => loadCatalog(p)).toThrow(message);
  });
});
