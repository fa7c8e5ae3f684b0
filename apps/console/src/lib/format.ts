import dayjs from 'dayjs';

/** A USD amount for display: at least 2 decimals, up to 6 for small amounts (prices are micro-USD). */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  const abs = Math.abs(usd);
  const digits = abs !== 0 && abs < 0.01 ? 6 : abs < 1 ? 4 : 2;
  const text = abs.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${usd < 0 ? '-' : ''}$${text}`;
}

/** Dollars to the micro-dollar, as entered (at least cents): for a confirmation of money moved. */
export function formatUsdExact(usd: number): string {
  const text = Math.abs(usd)
    .toFixed(6)
    .replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${usd < 0 ? '-' : ''}$${text}`;
}

/** Unix seconds as a local date and time. */
export function formatTime(seconds: number | null | undefined): string {
  if (!seconds) return '—';
  return dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss');
}

export function formatDate(seconds: number | null | undefined): string {
  if (!seconds) return '—';
  return dayjs.unix(seconds).format('YYYY-MM-DD');
}

/**
 * Micro-USD (an integer, as the API gives money) as dollars, exactly: never rounded, at least
 * cents, thousands separated ("$1,234.5678", "-$0.125").
 */
export function formatMicroUsd(micro: number | null | undefined): string {
  if (micro === null || micro === undefined || !Number.isFinite(micro)) return '—';
  const abs = Math.abs(Math.trunc(micro));
  const dollars = Math.floor(abs / 1_000_000)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${micro < 0 && abs !== 0 ? '-' : ''}$${dollars}.${cents}`;
}
