export * from './admin';
export * from './cancel';
export * from './durations';
export * from './events';
export * from './idempotency';
export * from './lifecycle';
export * from './list';
export * from './tasks';
