/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; formulas defused. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // a cell starting with = + - @ runs as a formula in spreadsheets; numbers stay numbers
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document (header line, CRLF line ends) of `rows` with the given columns. */
export function toCsv<T>(columns: Array<{ header: string; value: (row: T) => unknown }>, rows: T[]): string {
  const lines = [columns.map((c) => csvField(c.header)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(c.value(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Saves `csv` as a file (with a byte-order mark, so spreadsheet programs read UTF-8 text right). */
export function downloadCsv(filename: string, csv: string): void {
  const blob = new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** Every page of a keyset-paged list (`before` = the previous page's next_cursor), up to `max` rows. */
export async function fetchAllPages<T>(
  page: (before: string | undefined) => Promise<{ data: T[]; has_more: boolean; next_cursor: string | null }>,
  max = 10_000,
): Promise<{ rows: T[]; truncated: boolean }> {
  const rows: T[] = [];
  let before: string | undefined;
  for (;;) {
    const p = await page(before);
    rows.push(...p.data);
    if (!p.has_more || !p.next_cursor) return { rows, truncated: false };
    if (rows.length >= max) return { rows: rows.slice(0, max), truncated: true };
    before = p.next_cursor;
  }
}
