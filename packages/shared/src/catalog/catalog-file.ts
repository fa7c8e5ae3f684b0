import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors';
import { type CatalogModel, defaultModels, ModelCatalog } from './model-catalog';

const microUsd = z.number().int().min(0);

const entrySchema = z.strictObject({
  /** for a new id: the built-in model it copies (rules, upstream, price as overridden here) before the fields below apply */
  extends: z.string().min(1).optional(),
  /** false removes the model */
  enabled: z.boolean().optional(),
  /** image models: price per delivered image */
  priceMicroUsd: microUsd.optional(),
  /** video models: price per second of video */
  pricePerSecondMicroUsd: z.strictObject({ withAudio: microUsd, silent: microUsd }).optional(),
  upstreamModel: z.string().min(1).optional(),
  created: z.number().int().min(0).optional(),
});

/**
 * A deployment's changes to the built-in catalog (the file named by MODEL_CATALOG_FILE):
 * `{"models": {"seedream-3.0": {"enabled": false}, "seedream-4.5": {"priceMicroUsd": 45000},
 *   "seedream-4.5-intl": {"extends": "seedream-4.5", "upstreamModel": "seedream-4-5-251128"}}}`.
 */
export const catalogFileSchema = z.strictObject({
  models: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'model ids are lowercase letters, digits, . _ -'),
    entrySchema,
  ),
});
export type CatalogFile = z.output<typeof catalogFileSchema>;

/** Environment of every process that reads the catalog. */
export const catalogEnvSchema = z.object({
  /** JSON file of price overrides, added and removed models; unset = the built-in catalog */
  MODEL_CATALOG_FILE: z.string().min(1).optional(),
});

function applyEntry(
  id: string,
  base: CatalogModel,
  entry: z.output<typeof entrySchema>,
  fail: (m: string) => never,
): CatalogModel {
  const model: CatalogModel = { ...base, id };
  if (entry.upstreamModel !== undefined) model.upstreamModel = entry.upstreamModel;
  if (model.kind === 'image') {
    if (entry.pricePerSecondMicroUsd) fail(`${id}: an image model is priced with priceMicroUsd`);
    if (entry.priceMicroUsd !== undefined) model.priceMicroUsd = entry.priceMicroUsd;
  } else {
    if (entry.priceMicroUsd !== undefined) fail(`${id}: a video model is priced with pricePerSecondMicroUsd`);
    if (entry.pricePerSecondMicroUsd) model.pricePerSecondMicroUsd = entry.pricePerSecondMicroUsd;
  }
  if (entry.created !== undefined) model.created = entry.created;
  return model;
}

/**
 * The built-in models with `file`'s changes applied, in a fixed order (built-ins first, then additions).
 * Throws ConfigError naming the entry for an unknown id to change, a new id without `extends`, or a
 * price of the wrong unit.
 */
export function applyCatalogFile(
  file: CatalogFile,
  base: readonly CatalogModel[] = defaultModels(),
): ModelCatalog {
  const fail = (message: string): never => {
    throw new ConfigError(`invalid model catalog: ${message}`);
  };
  const byId = new Map(base.map((m) => [m.id, m]));
  const out: CatalogModel[] = [];
  for (const model of base) {
    const entry = file.models[model.id];
    if (!entry) out.push(model);
    else if (entry.extends !== undefined) fail(`${model.id}: 'extends' is only for new model ids`);
    else if (entry.enabled !== false) out.push(applyEntry(model.id, model, entry, fail));
  }
  for (const [id, entry] of Object.entries(file.models)) {
    if (byId.has(id)) continue;
    if (entry.extends === undefined)
      fail(`${id}: unknown model; a new model needs 'extends' naming a built-in one`);
    // The parent as this deployment has it (its price override included), even if it is disabled.
    const parent =
      out.find((m) => m.id === entry.extends) ??
      byId.get(entry.extends!) ??
      fail(`${id}: extends unknown model '${entry.extends}'`);
    if (entry.enabled !== false) out.push(applyEntry(id, parent, entry, fail));
  }
  return new ModelCatalog(out);
}

/**
 * The catalog of this deployment: the built-in one, or the built-in one changed by the JSON file at
 * `path`. Throws ConfigError (naming the file and the problem) when the file is unreadable or invalid,
 * so a process refuses to start with a wrong catalog.
 */
export function loadCatalog(path?: string): ModelCatalog {
  if (!path) return new ModelCatalog(defaultModels());
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`MODEL_CATALOG_FILE ${path}: ${(err as Error).message}`);
  }
  const parsed = catalogFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`);
    throw new ConfigError(`MODEL_CATALOG_FILE ${path} is invalid:\n${lines.join('\n')}`);
  }
  return applyCatalogFile(parsed.data);
}
