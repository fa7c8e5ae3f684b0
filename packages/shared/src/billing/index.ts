export * from './ledger';
export * from './statements';
export * from './topups';
export * from './settlement';
export * from './topup-orders';
