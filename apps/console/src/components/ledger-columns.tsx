import { Space, type TableColumnsType, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { type Translate, useT } from '../i18n/i18n';
import { formatMicroUsd, formatTime } from '../lib/format';
import { type LedgerEntry, ledgerReason } from '../lib/ledger-words';
import { ScreenReaderOnly, useCompactRows } from './CompactRows';

/** Where an entry's reference leads (a task, a top-up order), or none: the reference stays text. */
export type LedgerLink = (e: LedgerEntry) => string | undefined;

/** An entry's reference, linked to the page of what it names when there is one. */
function LedgerRef({ entry, linkOf }: { entry: LedgerEntry; linkOf: LedgerLink }) {
  if (!entry.ref) return <>—</>;
  const to = linkOf(entry);
  const text = (
    <Typography.Text code style={{ wordBreak: 'break-all' }}>
      {entry.ref}
    </Typography.Text>
  );
  return to ? (
    <Link to={to} data-testid="ledger-ref">
      {text}
    </Link>
  ) : (
    <span data-testid="ledger-ref">{text}</span>
  );
}

const amount = (v: number) => (
  <span style={{ color: v < 0 ? '#cf1322' : '#389e0d', whiteSpace: 'nowrap' }}>{formatMicroUsd(v)}</span>
);

/**
 * A ledger's columns, the customer's and the operators' alike: the exact amount and the reason in
 * words first, then the kind and the reference (linked by `linkOf`).
 */
const wideColumns = (t: Translate, linkOf: LedgerLink): TableColumnsType<LedgerEntry> => [
  { title: t('billing.time'), dataIndex: 'created_at', render: (s: number | null) => formatTime(s) },
  { title: t('billing.amount'), dataIndex: 'amount_micro_usd', align: 'right', render: amount },
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
  { title: t('billing.reference'), key: 'ref', render: (_v, e) => <LedgerRef entry={e} linkOf={linkOf} /> },
];

/** On a phone: the entry (reason, time and kind, reference) in one cell, its amount beside it. */
const narrowColumns = (t: Translate, linkOf: LedgerLink): TableColumnsType<LedgerEntry> => [
  {
    title: t('billing.reason'),
    key: 'entry',
    render: (_v, e) => (
      <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
        <span data-testid="ledger-reason" style={{ wordBreak: 'break-word' }}>
          {ledgerReason(t, e)}
        </span>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          <ScreenReaderOnly>{t('billing.time')}: </ScreenReaderOnly>
          {formatTime(e.created_at)} · <ScreenReaderOnly>{t('billing.kind')}: </ScreenReaderOnly>
          {t(`kind.${e.kind}`)}
        </Typography.Text>
        {e.ref ? (
          <span style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('billing.reference')}: </ScreenReaderOnly>
            <LedgerRef entry={e} linkOf={linkOf} />
          </span>
        ) : null}
      </Space>
    ),
  },
  { title: t('billing.amount'), dataIndex: 'amount_micro_usd', align: 'right', width: 104, render: amount },
];

/**
 * A ledger's columns and table width for the screen: five columns scrolled sideways inside their
 * card on a wide screen, two (the entry and its amount) on a phone, where nothing scrolls sideways.
 */
export function useLedgerColumns(linkOf: LedgerLink): {
  columns: TableColumnsType<LedgerEntry>;
  scrollX: number | undefined;
} {
  const t = useT();
  const compact = useCompactRows();
  return compact
    ? { columns: narrowColumns(t, linkOf), scrollX: undefined }
    : { columns: wideColumns(t, linkOf), scrollX: 640 };
}
