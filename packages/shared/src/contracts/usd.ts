import { z } from 'zod';

/**
 * An amount in USD as a client or provider sends it: a finite number with at most 6 decimals
 * (whole micro-USD) and at most a billion, as integer micro-USD. Validated, never rounded: a
 * value that is not exactly some micro-USD (6.9999996, 7.0000001) is refused.
 */
export const usdAmount = z
  .number()
  .refine((v) => Number.isFinite(v) && Math.abs(v) <= 1_000_000_000, { message: 'is too large' })
  .refine((v) => Number(v.toFixed(6)) === v, { message: 'must have at most 6 decimals' })
  .transform((v) => Math.round(v * 1_000_000));
