export * from './ledger';
export * from './settlement';
export * from './statements';
export * from './topups';
<<<<<<< HEAD
=======
export * from './settlement';
export * from './video-usage';
>>>>>>> media
