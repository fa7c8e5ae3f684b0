export * from './json-client';
export * from './urls';
export * from './address-group';
