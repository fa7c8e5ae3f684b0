import dayjs from 'dayjs';

/** Unix seconds as a local date and time. */
export function formatTime(seconds: number | null | undefined): string {
  if (!seconds) return '—';
  return dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss');
}

export function formatDate(seconds: number | null | undefined): string {
  if (!seconds) return '—';
  return dayjs.unix(seconds).format('YYYY-MM-DD');
}

const thousands = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * Micro-USD (an integer, as the API gives money) as dollars, exactly: never rounded, at least
 * cents, thousands separated ("$1,234.5678", "-$0.125", "$99.998"). The console's one money
 * format: every balance, credit, price and ledger row goes through it.
 */
export function formatMicroUsd(micro: number | null | undefined): string {
  if (micro === null || micro === undefined || !Number.isFinite(micro)) return '—';
  const abs = Math.abs(Math.trunc(micro));
  const dollars = thousands(Math.floor(abs / 1_000_000).toString());
  const cents = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${micro < 0 && abs !== 0 ? '-' : ''}$${dollars}.${cents}`;
}

/**
 * A `*_usd` number of the API as micro-USD: the API writes them as micro-USD / 1,000,000, so the
 * nearest integer is the exact amount it holds.
 */
export const usdToMicro = (usd: number): number => Math.round(usd * 1_000_000);

/** A `*_usd` number of the API, exactly (formatMicroUsd of its micro-USD). */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  return formatMicroUsd(usdToMicro(usd));
}

/** An amount in fen (CNY cents, an integer) as yuan, exactly, thousands separated ("¥1,234.50"). */
export function formatFen(fen: number): string {
  const abs = Math.abs(Math.trunc(fen));
  return `${fen < 0 && abs !== 0 ? '-' : ''}¥${thousands(Math.floor(abs / 100).toString())}.${String(abs % 100).padStart(2, '0')}`;
}

/** A CNY amount as the API gives it (yuan, at most 2 decimals), exactly. */
export const formatCny = (cny: number): string => formatFen(Math.round(cny * 100));
