export * from './enqueue';
export * from './outbox';
export * from './schedule';
export * from './settings';
export * from './signing';
export * from './ssrf';
