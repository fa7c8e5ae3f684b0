import { describe, expect, it } from 'vitest';
import type { components } from '../api/schema';
import { en } from '../i18n/en';
import { format, type Translate } from '../i18n/i18n';
import { zh } from '../i18n/zh';
import { type LedgerEntry, ledgerReason } from './ledger-words';

type Details = components['schemas']['LedgerDetails'];
const translate =
  (dict: Record<string, string>): Translate =>
  (key, vars) =>
    format(dict[key] ?? en[key], vars);
const tEn = translate(en);
const tZh = translate(zh);

// every kind of entry and every cause the API answers, with what each must say in each language
const MODEL = 'wan2.6-i2v-flash-5s-720p';
const cases: Array<[LedgerEntry['kind'], Details | null, string, string]> = [
  ['grant', { cause: 'signup_credit' }, 'Test credit for a new account', '新账户测试额度'],
  ['grant', { cause: 'initial_credit' }, 'Credit the account was opened with', '开户额度'],
  ['grant', { cause: 'operator_grant' }, 'Credit granted by mediagate', '平台赠送额度'],
  [
    'topup',
    {
      cause: 'payment',
      provider: 'alipay',
      reference: 'top_1',
      paid: { currency: 'CNY', amount_fen: 49_999 },
    },
    'Top-up of ¥499.99 via Alipay',
    '支付宝充值 ¥499.99',
  ],
  [
    'bonus',
    {
      cause: 'payment',
      provider: 'wechat',
      reference: 'top_2',
      paid: { currency: 'CNY', amount_fen: 123_450 },
    },
    'Bonus on the top-up of ¥1,234.50 via WeChat Pay',
    '微信支付充值 ¥1,234.50 的赠送额度',
  ],
  [
    'topup',
    {
      cause: 'payment',
      provider: 'bank_transfer',
      reference: 'WIRE-1',
      paid: { currency: 'USD', amount_micro_usd: 100_000_001 },
    },
    'Top-up of $100.000001 via bank transfer',
    '银行转账充值 $100.000001',
  ],
  ['charge', { cause: 'video_task', model: MODEL }, `Video task (${MODEL})`, `视频任务（${MODEL}）`],
  [
    'charge',
    { cause: 'image_call', model: 'seedream-4.0', units: 4 },
    '4 images (seedream-4.0)',
    '4 张图片（seedream-4.0）',
  ],
  ['charge', { cause: 'image_call', model: null, units: 1 }, '1 image', '1 张图片'],
  [
    'refund',
    { cause: 'task_failed', error_code: 'canceled', model: MODEL },
    `Refund: the task was canceled (${MODEL})`,
    `退款：任务已取消（${MODEL}）`,
  ],
  [
    'refund',
    { cause: 'task_failed', error_code: 'DataInspectionFailed', model: null },
    "Refund: the model's content check refused the task",
    '退款：任务未通过模型的内容审核',
  ],
  [
    'refund',
    { cause: 'task_failed', error_code: 'upstream_submit_uncertain', model: null },
    'Refund: the task failed',
    '退款：任务失败',
  ],
  [
    'refund',
    { cause: 'images_not_delivered', missing: 1, requested: 4, model: null },
    'Refund of 1 of 4 images, not delivered',
    '退款：4 张图片中有 1 张未生成',
  ],
  [
    'refund',
    { cause: 'image_call_failed', model: null },
    'Refund: the image call failed',
    '退款：图片生成失败',
  ],
  [
    'refund',
    { cause: 'unsettled', after_s: 600, model: null },
    'Refund: the image call ended without its result reaching you',
    '退款：图片调用结束但结果未送达',
  ],
  [
    'refund',
    {
      cause: 'usage_settlement',
      model: null,
      quoted_micro_usd: 500_000,
      actual_micro_usd: 400_000,
      duration_s: 4,
      resolution: '720P',
      audio: false,
    },
    'Refund of the difference: the video came out 4 s at 720P, silent, $0.40 instead of $0.50',
    '差额退款：视频实际为 4 秒 720P（无声），按 $0.40 计费（原 $0.50）',
  ],
  [
    'refund',
    { cause: 'topup_refund', provider: 'alipay', order_id: 'top_3', refund_fen: 1_750, topup_fen: 3_500 },
    'Refund of ¥17.50 of the ¥35.00 top-up via Alipay',
    '支付宝充值 ¥35.00 退款 ¥17.50',
  ],
  // an operator's note is shown as written, in any language
  [
    'adjustment',
    { cause: 'operator', note: 'goodwill, ticket 42' },
    'goodwill, ticket 42',
    'goodwill, ticket 42',
  ],
  ['adjustment', { cause: 'operator', note: '补偿重复扣费' }, '补偿重复扣费', '补偿重复扣费'],
  // an entry from before details whose text could not be read: named by its kind
  ['refund', null, 'Refund', '退款'],
];

describe('ledger reasons in the page language', () => {
  it.each(cases)('%s %j: %s / %s', (kind, details, english, chinese) => {
    const entry = { kind, details };
    expect(ledgerReason(tEn, entry)).toBe(english);
    expect(ledgerReason(tZh, entry)).toBe(chinese);
  });

  it('covers every kind', () => {
    expect(new Set(cases.map(([kind]) => kind))).toEqual(
      new Set(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']),
    );
  });

  it('says no English word on a Chinese page, beyond identifiers and what an operator wrote', () => {
    for (const [kind, details] of cases) {
      if (details?.cause === 'operator') continue;
      const text = ledgerReason(tZh, { kind, details })
        .replaceAll(MODEL, '')
        .replaceAll('seedream-4.0', '')
        .replaceAll('720P', '');
      expect(text).not.toMatch(/[A-Za-z]{2,}/);
    }
  });

  it('never shows the stored English text', () => {
    const entry = {
      kind: 'topup' as const,
      reason: 'top-up of 499.99 CNY via alipay',
      details: {
        cause: 'payment' as const,
        provider: 'alipay',
        reference: 'top_1',
        paid: { currency: 'CNY' as const, amount_fen: 49_999 },
      },
    };
    expect(ledgerReason(tZh, entry)).not.toContain('top-up');
    expect(ledgerReason(tEn, entry)).not.toContain('CNY');
  });
});

describe('the ledger export', () => {
  it('writes each reason in the page language and the amount exactly', async () => {
    const { ledgerCsvColumns } = await import('../pages/Billing');
    const entry = {
      id: '1',
      kind: 'topup' as const,
      amount_usd: 99.998,
      amount_micro_usd: 99_998_000,
      ref: 'wechat:top_1',
      reason: 'top-up of 499.99 CNY via wechat',
      details: {
        cause: 'payment' as const,
        provider: 'wechat',
        reference: 'top_1',
        paid: { currency: 'CNY' as const, amount_fen: 49_999 },
      },
      created_at: 1_800_000_000,
    };
    const row = (t: Translate) => ledgerCsvColumns(t).map((c) => c.value(entry));
    expect(row(tZh)).toContain('微信支付充值 ¥499.99');
    expect(row(tEn)).toContain('Top-up of ¥499.99 via WeChat Pay');
    expect(row(tZh)).toContain(99.998);
    expect(row(tZh)).not.toContain('top-up of 499.99 CNY via wechat');
  });
});
