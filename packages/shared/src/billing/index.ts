export * from './ledger';
export * from './preflight';
export * from './settlement';
export * from './settlement';
export * from './statements';
export * from './topup-orders';
export * from './topups';
export * from './video-usage';
