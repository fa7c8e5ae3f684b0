import type { components } from '../api/schema';

export type TopUpOptions = components['schemas']['TopUpOptions'];
export type TopUp = components['schemas']['TopUp'];

/** What a top-up of `amountCny` credits, as shown before paying (the API decides the real figures). */
export function topUpPreview(amountCny: number | null | undefined, o: TopUpOptions) {
  const amount = amountCny ?? 0;
  const belowMin = amount < o.min_amount_cny;
  const creditUsd = Math.floor((amount / o.cny_per_usd) * 1e6) / 1e6;
  const bonus = amount >= o.bonus_threshold_cny;
  const bonusUsd = bonus ? Math.floor(creditUsd * o.bonus_percent * 1e4) / 1e6 : 0;
  return { belowMin, creditUsd, bonusUsd, totalUsd: Math.round((creditUsd + bonusUsd) * 1e6) / 1e6, bonus };
}

/** A top-up that will not change any more. */
export const topUpFinished = (s: TopUp['status']) => s === 'credited' || s === 'closed' || s === 'expired';
