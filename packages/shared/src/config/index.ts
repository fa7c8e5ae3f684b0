export * from './env';
export * from './node-flags';
