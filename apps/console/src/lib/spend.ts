export interface SpendRow {
  day: string;
  model: string | null;
  calls: number;
  spent_usd: number;
}

export interface SpendSeries {
  /** every day of the window, oldest first, YYYY-MM-DD */
  days: string[];
  /** one series per model, biggest spender first, a value for every day (0 when none) */
  series: Array<{ model: string; values: number[]; total: number; calls: number }>;
  total: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/**
 * The chart's data from the API's per-day-and-model rows: the last `days` days ending `today`
 * (local calendar days, as the API grouped them in the browser's time zone), days without calls
 * as zeros, amounts rounded to micro-USD.
 */
export function spendSeries(rows: SpendRow[], days: number, today: Date, otherLabel = 'other'): SpendSeries {
  const dayList: string[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    dayList.push(ymd(d));
  }
  const index = new Map(dayList.map((d, i) => [d, i]));
  const byModel = new Map<string, { values: number[]; calls: number }>();
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    const model = r.model ?? otherLabel;
    const entry = byModel.get(model) ?? { values: dayList.map(() => 0), calls: 0 };
    entry.values[i] = Math.round(((entry.values[i] ?? 0) + r.spent_usd) * 1e6) / 1e6;
    entry.calls += r.calls;
    byModel.set(model, entry);
  }
  const series = [...byModel.entries()]
    .map(([model, e]) => ({
      model,
      values: e.values,
      calls: e.calls,
      total: Math.round(e.values.reduce((a, b) => a + b, 0) * 1e6) / 1e6,
    }))
    .sort((a, b) => b.total - a.total || a.model.localeCompare(b.model));
  const total = Math.round(series.reduce((a, s) => a + s.total, 0) * 1e6) / 1e6;
  return { days: dayList, series, total };
}
