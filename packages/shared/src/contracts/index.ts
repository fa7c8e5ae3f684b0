export * from './responses';
