import type { components } from '../api/schema';
import type { Translate } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';
import { formatFen, formatMicroUsd } from './format';

export type LedgerEntry = components['schemas']['LedgerEntry'];
type Details = components['schemas']['LedgerDetails'];
type Paid = Extract<Details, { cause: 'payment' }>['paid'];

const PROVIDERS: Record<string, MessageKey> = {
  alipay: 'topup.provider.alipay',
  wechat: 'topup.provider.wechat',
  bank_transfer: 'ledger.provider.bank_transfer',
  dev: 'ledger.provider.dev',
};

/** Why a task failed, as a refund of it says it (the codes the task page words too). */
const TASK_FAILURES: Record<string, MessageKey> = {
  canceled: 'ledger.refund.canceled',
  timeout: 'ledger.refund.timeout',
  DataInspectionFailed: 'ledger.refund.inspection',
  InvalidParameter: 'ledger.refund.invalid',
};

const provider = (t: Translate, name: string) => (PROVIDERS[name] ? t(PROVIDERS[name]) : name);
const paidAmount = (p: Paid) =>
  p.currency === 'CNY' ? formatFen(p.amount_fen) : formatMicroUsd(p.amount_micro_usd);

/**
 * What a ledger entry is, in the page's language, from its kind and details (never the stored
 * English `reason`): amounts exact, identifiers (model, provider names we do not know) and an
 * operator's note as written. An entry without details is named by its kind.
 */
export function ledgerReason(t: Translate, e: Pick<LedgerEntry, 'kind' | 'details'>): string {
  const d = e.details;
  if (!d) return t(`kind.${e.kind}`);
  const withModel = (text: string, model: string | null) =>
    model ? t('ledger.withModel', { text, model }) : text;
  switch (d.cause) {
    case 'signup_credit':
      return t('ledger.grant.signup');
    case 'initial_credit':
      return t('ledger.grant.initial');
    case 'operator_grant':
      return t('ledger.grant.operator');
    case 'payment': {
      const vars = { amount: paidAmount(d.paid), provider: provider(t, d.provider) };
      return e.kind === 'bonus' ? t('ledger.bonus', vars) : t('ledger.topup', vars);
    }
    case 'video_task':
      return withModel(t('ledger.charge.video'), d.model);
    case 'image_call':
      return withModel(
        d.units === 1 || d.units === null
          ? t('ledger.charge.image')
          : t('ledger.charge.images', { n: d.units }),
        d.model,
      );
    case 'task_failed':
      return withModel(t(TASK_FAILURES[d.error_code] ?? 'ledger.refund.failed'), d.model);
    case 'images_not_delivered':
      return withModel(t('ledger.refund.images', { missing: d.missing, requested: d.requested }), d.model);
    case 'image_call_failed':
      return withModel(t('ledger.refund.imageFailed'), d.model);
    case 'unsettled':
      return withModel(t('ledger.refund.unsettled'), d.model);
    case 'usage_settlement':
      return withModel(
        t(d.audio ? 'ledger.refund.usage' : 'ledger.refund.usageSilent', {
          duration: d.duration_s,
          resolution: d.resolution,
          actual: formatMicroUsd(d.actual_micro_usd),
          quoted: formatMicroUsd(d.quoted_micro_usd),
        }),
        d.model,
      );
    case 'topup_refund':
      return t('ledger.refund.topup', {
        refund: formatFen(d.refund_fen),
        topup: formatFen(d.topup_fen),
        provider: provider(t, d.provider),
      });
    case 'operator':
      return d.note;
  }
}
