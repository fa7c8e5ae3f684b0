export * from './dist/testing';
