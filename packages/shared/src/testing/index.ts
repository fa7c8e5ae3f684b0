export * from './processes';
export * from './services';
export * from './wait';
export * from './stack';
export * from './upstream-sim';
export * from './streamed-form';
