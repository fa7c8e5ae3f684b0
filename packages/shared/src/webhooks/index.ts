export * from './enqueue';
export * from './outbox';
export * from './schedule';
export * from './send';
export * from './settings';
export * from './signing';
export * from './ssrf';
export * from './stats';
