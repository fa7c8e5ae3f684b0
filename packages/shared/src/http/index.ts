// The module's public face: what the apps and the other modules call. Anything else is internal.
export { createHttpAgent } from './json-client';
export type { HttpTimeouts } from './json-client';
export { isHttpUrl } from './urls';
export { addressGroup } from './address-group';
