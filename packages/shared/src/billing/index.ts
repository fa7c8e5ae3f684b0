export * from './ledger';
export * from './settlement';
export * from './statements';
export * from './topups';
export * from './video-usage';
