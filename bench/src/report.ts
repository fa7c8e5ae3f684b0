/** One line of the benchmark table: a figure next to the baseline measured in the same run. */
export interface Row {
  scenario: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: number;
  baselineLabel?: string;
  /** value / baseline (or baseline / value when lower is better) */
  ratio?: number;
  target?: string;
  pass?: boolean;
  note?: string;
}

export function ratioRow(
  r: Omit<Row, 'ratio' | 'pass'> & { higherIsBetter: boolean; minRatio?: number; maxRatio?: number },
): Row {
  const { higherIsBetter, minRatio, maxRatio, ...row } = r;
  const ratio = row.baseline ? row.value / row.baseline : undefined;
  let pass: boolean | undefined;
  if (ratio !== undefined && minRatio !== undefined) pass = ratio >= minRatio;
  if (ratio !== undefined && maxRatio !== undefined) pass = ratio <= maxRatio;
  void higherIsBetter;
  return { ...row, ratio: ratio === undefined ? undefined : Math.round(ratio * 100) / 100, pass };
}

const fmt = (n: number | undefined) =>
  n === undefined ? '' : Number.isInteger(n) ? String(n) : n.toFixed(2);

export function markdownTable(rows: Row[]): string {
  const head =
    '| scenario | metric | value | baseline | ratio | target | met | note |\n|---|---|---|---|---|---|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.scenario} | ${r.metric} | ${fmt(r.value)} ${r.unit} | ${r.baseline === undefined ? '' : `${fmt(r.baseline)} ${r.unit} (${r.baselineLabel ?? 'baseline'})`} | ${fmt(r.ratio)} | ${r.target ?? ''} | ${r.pass === undefined ? '' : r.pass ? 'yes' : 'no'} | ${r.note ?? ''} |`,
  );
  return [head, ...lines].join('\n');
}
