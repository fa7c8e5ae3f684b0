import { describe, expect, it } from 'vitest';
import { selectedKey } from '../layout/ConsoleLayout';
import { csvField, fetchAllPages, toCsv } from './csv';
import { formatCny, formatFen, formatMicroUsd, formatUsd } from './format';
import { isIpRule } from './ip';
import { passwordStrength } from './password';
import { looksLikeTransferReference, transferReference } from './reference';
import { spendSeries } from './spend';
import { type TopUpOptions, topUpFinished, topUpPreview } from './topup';

describe('password strength', () => {
  it.each([
    ['short', 'too_short'],
    ['password123', 'weak'],
    ['aaaaaaaaaa', 'weak'],
    ['abcdefghij', 'weak'],
    ['Mxqvtplwzr', 'fair'],
    ['Tr0ub4dor&3', 'good'],
    ['correct-Horse-battery-9-staple', 'strong'],
  ])('rates %s as %s', (password, strength) => {
    expect(passwordStrength(password).strength).toBe(strength);
  });
});

describe('CSV', () => {
  it('quotes commas, quotes and line breaks, and defuses formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField(null)).toBe('');
  });

  it('writes a header and one CRLF line per row', () => {
    const csv = toCsv(
      [
        { header: 'kind', value: (r: { k: string; n: number }) => r.k },
        { header: 'amount', value: (r) => r.n },
      ],
      [
        { k: 'charge', n: -0.3 },
        { k: '充值', n: 7 },
      ],
    );
    expect(csv).toBe('kind,amount\r\ncharge,-0.3\r\n充值,7\r\n');
  });

  it('follows next_cursor until the last page, and stops at the row cap', async () => {
    const pages: Record<string, { data: number[]; has_more: boolean; next_cursor: string | null }> = {
      first: { data: [5, 4], has_more: true, next_cursor: '4' },
      '4': { data: [3, 2], has_more: true, next_cursor: '2' },
      '2': { data: [1], has_more: false, next_cursor: null },
    };
    const seen: Array<string | undefined> = [];
    const all = await fetchAllPages(async (before) => {
      seen.push(before);
      return pages[before ?? 'first']!;
    });
    expect(all).toEqual({ rows: [5, 4, 3, 2, 1], truncated: false });
    expect(seen).toEqual([undefined, '4', '2']);
    expect(await fetchAllPages(async (before) => pages[before ?? 'first']!, 3)).toEqual({
      rows: [5, 4, 3],
      truncated: true,
    });
  });
});

describe('spend series', () => {
  it('fills every day of the window, one series per model, biggest first', () => {
    const s = spendSeries(
      [
        { day: '2026-11-20', model: 'seedream-4.0', calls: 2, spent_usd: 0.06 },
        { day: '2026-11-23', model: 'wan2.6-i2v-flash-5s-720p', calls: 1, spent_usd: 0.3 },
        { day: '2026-11-23', model: 'seedream-4.0', calls: 1, spent_usd: 0.03 },
        { day: '2026-10-01', model: 'seedream-4.0', calls: 9, spent_usd: 9 },
        { day: '2026-11-22', model: null, calls: 1, spent_usd: 0.01 },
      ],
      5,
      new Date(2026, 10, 23, 15, 0),
      'other',
    );
    expect(s.days).toEqual(['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23']);
    expect(s.series.map((x) => x.model)).toEqual(['wan2.6-i2v-flash-5s-720p', 'seedream-4.0', 'other']);
    expect(s.series[1]).toMatchObject({ values: [0, 0.06, 0, 0, 0.03], total: 0.09, calls: 3 });
    expect(s.total).toBe(0.4);
  });

  it('crosses month ends', () => {
    expect(spendSeries([], 3, new Date(2026, 2, 1)).days).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });
});

describe('top-up preview', () => {
  const options: TopUpOptions = {
    providers: ['alipay', 'wechat'],
    cny_per_usd: 5,
    min_amount_cny: 35,
    bonus_threshold_cny: 500,
    bonus_percent: 10,
    bank_transfer: {
      reference: 'MG0123456789',
      beneficiary: null,
      bank: null,
      account_number: null,
      contact: null,
    },
  };
  it('says below the minimum, the credit at the rate, and the bonus from the threshold', () => {
    expect(topUpPreview(20, options)).toMatchObject({ belowMin: true });
    expect(topUpPreview(35, options)).toMatchObject({
      belowMin: false,
      creditMicroUsd: 7_000_000,
      bonusMicroUsd: 0,
      bonus: false,
    });
    // exact to the micro-USD: 499.99 CNY is 99.998 USD, below the 100 USD of the bonus
    expect(topUpPreview(499.99, options)).toMatchObject({
      creditMicroUsd: 99_998_000,
      bonus: false,
      bonusMicroUsd: 0,
    });
    expect(topUpPreview(500, options)).toMatchObject({
      creditMicroUsd: 100_000_000,
      bonusMicroUsd: 10_000_000,
      totalMicroUsd: 110_000_000,
      bonus: true,
    });
    expect(topUpPreview(1234.57, options)).toMatchObject({
      creditMicroUsd: 246_914_000,
      bonusMicroUsd: 24_691_400,
    });
    expect(topUpPreview(undefined, options)).toMatchObject({ belowMin: true, creditMicroUsd: 0 });
  });
  it('knows which states are final', () => {
    expect(
      ['created', 'paid', 'credited', 'closed', 'expired', 'cancelled'].map((s) => topUpFinished(s as never)),
    ).toEqual([false, false, true, true, true, true]);
  });
});

describe('USD display: exact, never rounded', () => {
  it.each([
    [0.05, '$0.05'],
    [4.75, '$4.75'],
    [0.000123, '$0.000123'],
    [-0.3, '-$0.30'],
    [1234.5, '$1,234.50'],
    // a 499.99 CNY top-up at 5 CNY per USD
    [99.998, '$99.998'],
    [99.999999, '$99.999999'],
    [1234567.000001, '$1,234,567.000001'],
    [20, '$20.00'],
    [-12.345678, '-$12.345678'],
    [1.1, '$1.10'],
    [null, '—'],
  ])('%s -> %s', (v, text) => expect(formatUsd(v)).toBe(text));
  it.each([
    [99_998_000, '$99.998'],
    [50_000, '$0.05'],
    [-125_000, '-$0.125'],
    [1_234_567_891, '$1,234.567891'],
    [0, '$0.00'],
  ])('%s micro-USD -> %s', (v, text) => expect(formatMicroUsd(v)).toBe(text));
});

describe('CNY display', () => {
  it.each([
    [49_999, '¥499.99'],
    [3_500, '¥35.00'],
    [123_456_705, '¥1,234,567.05'],
  ])('%s fen -> %s', (fen, text) => expect(formatFen(fen)).toBe(text));
  it('reads yuan as the API gives them', () => {
    expect(formatCny(499.99)).toBe('¥499.99');
    expect(formatCny(0.07)).toBe('¥0.07');
  });
});

describe('the menu entry of a page', () => {
  const keys = ['/console', '/console/keys', '/console/videos', '/admin/accounts', '/admin/tasks'];
  it.each([
    ['/console', '/console'],
    ['/console/', '/console'],
    ['/console/keys', '/console/keys'],
    ['/console/videos/task_01ABC', '/console/videos'],
    ['/admin/accounts/acct_01ABC', '/admin/accounts'],
    // pages outside the menu select nothing, not the dashboard
    ['/console/password', undefined],
    ['/console/no-such-page', undefined],
    ['/console/keysmith', undefined],
  ])('%s selects %s', (path, key) => {
    expect(selectedKey(path, keys)).toBe(key);
  });
});

describe('a key address rule', () => {
  it.each([
    ['203.0.113.7', true],
    ['203.0.113.0/24', true],
    [' 10.0.0.0/8 ', true],
    ['0.0.0.0/0', true],
    ['2001:db8::/32', true],
    ['::1', true],
    ['fe80::1%eth0', true],
    ['203.0.113.256', false],
    ['203.0.113', false],
    ['203.0.113.07', false],
    ['203.0.113.0/33', false],
    ['2001:db8::/129', false],
    ['10.0.0.0/8/8', false],
    ['10.0.0.0/', false],
    ['example.com', false],
    ['abc%eth0', false],
    ['::1%', false],
    ['fe80::1%a%b', false],
    ['10.0.0.1%eth0', false],
    ['1.2.3.4.5', false],
    ['', false],
  ])('%s: %s', (rule, ok) => {
    expect(isIpRule(rule)).toBe(ok);
  });
});

describe('a transfer memo reference', () => {
  it.each([
    ['MG5BCXYCR8A3', 'MG5BCXYCR8A3'],
    ['mg-5bcx ycr8a3', 'MG5BCXYCR8A3'],
    ['MG5BCXYCR8AO', undefined], // O is not in the alphabet
    ['MG5BCXYCR8A', undefined],
    ['MG5BCXYCR8A33', undefined],
    ['5BCXYCR8A3', undefined],
  ])('%s reads as %s', (text, reference) => {
    expect(transferReference(text)).toBe(reference);
  });
  it('tells a reference with a typo from an e-mail address', () => {
    expect(looksLikeTransferReference('MG12345')).toBe(true);
    expect(looksLikeTransferReference(' mg-5bcx')).toBe(true);
    expect(looksLikeTransferReference('mgr@example.com')).toBe(false);
    expect(looksLikeTransferReference('ops@example.com')).toBe(false);
  });
});

describe('snippets', () => {
  it('writes an edit as the multipart form with the local file, and n and size only when chosen', async () => {
    const { snippet } = await import('./snippets');
    const base = 'https://api.example.com/v1';
    const edit = {
      kind: 'image-edit' as const,
      model: 'qwen-image-edit',
      prompt: 'a scarf',
      n: 2,
      fileName: 'fox.png',
    };
    const curl = snippet('curl', edit, base);
    expect(curl).toContain(`${base}/images/edits`);
    expect(curl).toContain("-F 'image=@fox.png'");
    expect(curl).toContain("-F 'n=2'");
    expect(curl).not.toContain('size');
    expect(snippet('node', edit, base)).toContain('image: fs.createReadStream("fox.png")');
    expect(snippet('python', edit, base)).toContain('with open("fox.png", "rb") as f:');
    expect(snippet('python', edit, base)).toContain(
      'client.images.edit(image=f, model="qwen-image-edit", prompt="a scarf", n=2)',
    );
    const one = { kind: 'image' as const, model: 'seedream-4.0', prompt: 'a fox', n: 1, size: '2K' };
    expect(snippet('curl', one, base)).toContain(`'{"model":"seedream-4.0","prompt":"a fox","size":"2K"}'`);
    expect(snippet('node', one, base)).toContain(
      'client.images.generate({ model: "seedream-4.0", prompt: "a fox", size: "2K" })',
    );
  });

  it('keeps the key out of the code and quotes what the shell would otherwise read', async () => {
    const { snippet } = await import('./snippets');
    const call = { kind: 'image' as const, model: 'seedream-4.0', prompt: "a boat's $HOME" };
    const curl = snippet('curl', call, 'https://api.example.com/v1');
    expect(curl).toContain('https://api.example.com/v1/images/generations');
    expect(curl).toContain('Bearer $MEDIAGATE_API_KEY');
    expect(curl).toContain(`'{"model":"seedream-4.0","prompt":"a boat'\\''s $HOME"}'`);
    expect(snippet('python', call, 'https://api.example.com/v1')).toContain(
      'os.environ["MEDIAGATE_API_KEY"]',
    );
    expect(snippet('node', call, 'https://api.example.com/v1')).toContain(
      'apiKey: process.env.MEDIAGATE_API_KEY',
    );
  });
});
