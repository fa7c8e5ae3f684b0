export interface TopUpOptions {
  providers: string[];
  cny_per_usd: number;
  min_amount_cny: number;
  bonus_threshold_cny: number;
  bonus_percent: number;
  /** always present: the customer's reference, and what the operator published of its account */
  bank_transfer: {
    reference: string;
    beneficiary: string | null;
    bank: string | null;
    account_number: string | null;
  };
}

export interface TopUp {
  object: 'topup';
  id: string;
  status: 'created' | 'paid' | 'credited' | 'closed' | 'expired';
  provider: string;
  amount_cny: number;
  credit_usd: number;
  bonus_usd: number;
  qr_code: string | null;
  expires_at: number | null;
  created_at: number;
  paid_at: number | null;
  credited_at: number | null;
}

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
