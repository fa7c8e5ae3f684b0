/**
 * The reference a bank transfer's memo carries, naming the paying account: `MG` and ten letters or
 * digits of Crockford's alphabet (packages/shared/src/billing/topup-orders.ts), however the bank or
 * the customer spaced, dashed or cased it.
 */
export function transferReference(text: string): string | undefined {
  const compact = text.replace(/[\s-]/g, '').toUpperCase();
  return /^MG[0-9A-HJKMNP-TV-Z]{10}$/.test(compact) ? compact : undefined;
}

/** Whether text was meant as such a reference (it starts with MG and is not an e-mail address). */
export const looksLikeTransferReference = (text: string): boolean =>
  /^\s*mg/i.test(text) && !text.includes('@');
