export * from './setup';
export * from './spans';
