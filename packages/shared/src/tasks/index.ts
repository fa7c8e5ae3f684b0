export * from './task-object';
export * from './tasks';
export * from './list';
export * from './admin';
export * from './idempotency';
export * from './cancel';
