// The module's public face: what the apps and the other modules call. Anything else is internal.
export { STORES_REQUIRED_IN_PRODUCTION, baseEnvSchema, intFromEnv, loadConfig, metricsEnvShape } from './env';
export type { LoadConfigOptions } from './env';
export { NODE_FLAGS } from './node-flags';
