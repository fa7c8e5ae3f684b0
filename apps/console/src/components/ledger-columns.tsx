import { type TableColumnsType, Tag } from 'antd';
import type { Translate } from '../i18n/i18n';
import { formatMicroUsd, formatTime } from '../lib/format';
import { type LedgerEntry, ledgerReason } from '../lib/ledger-words';

/**
 * A ledger's columns, the customer's and the operators' alike: the exact amount and the reason in
 * words first (what a phone shows without scrolling the card sideways), then the kind and the ref.
 */
export const ledgerColumns = (t: Translate): TableColumnsType<LedgerEntry> => [
  { title: t('billing.time'), dataIndex: 'created_at', render: (s: number | null) => formatTime(s) },
  {
    title: t('billing.amount'),
    dataIndex: 'amount_micro_usd',
    align: 'right',
    render: (v: number) => <span style={{ color: v < 0 ? '#cf1322' : '#389e0d' }}>{formatMicroUsd(v)}</span>,
  },
  {
    title: t('billing.reason'),
    key: 'reason',
    render: (_v, e) => <span data-testid="ledger-reason">{ledgerReason(t, e)}</span>,
  },
  {
    title: t('billing.kind'),
    dataIndex: 'kind',
    render: (k: LedgerEntry['kind']) => <Tag>{t(`kind.${k}`)}</Tag>,
  },
  { title: t('billing.reference'), dataIndex: 'ref', render: (r: string | null) => r ?? '—' },
];
