// The module's public face: what the apps and the other modules call. Anything else is internal.
export { startTracing } from './setup';
export type { Tracing } from './setup';
export { inSpan, routeNamerOfActiveSpan } from './spans';
