export * from './json-client';
export * from './urls';
