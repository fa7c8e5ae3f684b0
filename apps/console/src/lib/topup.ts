import type { components } from '../api/schema';

export type TopUpOptions = components['schemas']['TopUpOptions'];
export type TopUp = components['schemas']['TopUp'];

/**
 * What a top-up of `amountCny` credits, as shown before paying, in micro-USD and by the API's own
 * rule (quoteCnyTopUp): the credit rounded down to the micro-USD, the bonus from a credit at the
 * threshold on. The API decides the real figures.
 */
export function topUpPreview(amountCny: number | null | undefined, o: TopUpOptions) {
  const creditOf = (cny: number) => Math.floor((Math.round(cny * 100) * 10_000) / o.cny_per_usd + 1e-6);
  const amount = amountCny ?? 0;
  const belowMin = amount < o.min_amount_cny;
  const creditMicroUsd = creditOf(amount);
  const bonus = o.bonus_percent > 0 && creditMicroUsd >= creditOf(o.bonus_threshold_cny);
  const bonusMicroUsd = bonus ? Math.floor((creditMicroUsd * o.bonus_percent) / 100) : 0;
  return { belowMin, creditMicroUsd, bonusMicroUsd, totalMicroUsd: creditMicroUsd + bonusMicroUsd, bonus };
}

/**
 * A top-up whose page stops asking: it will not change any more, or (cancelled) its owner gave it
 * up (a payment still made with its code is credited all the same, and shows in the history).
 */
export const topUpFinished = (s: TopUp['status']) =>
  s === 'credited' || s === 'closed' || s === 'expired' || s === 'cancelled';
