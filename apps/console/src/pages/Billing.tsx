import { DownloadOutlined } from '@ant-design/icons';
import { type QueryFunction, type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Select, Space, type TableColumnsType, Tabs, Tag, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { $api } from '../api/client';
import type { components } from '../api/schema';
import { ScreenReaderOnly, useCompactRows } from '../components/CompactRows';
import { useErrorText } from '../components/ErrorAlert';
import { useLedgerColumns } from '../components/ledger-columns';
import { ListCard, type Pager, usePager } from '../components/ListCard';
import { type Translate, useT } from '../i18n/i18n';
import { downloadCsv, fetchAllPages, toCsv } from '../lib/csv';
import { formatMicroUsd, formatTime } from '../lib/format';
import { PageTitle } from '../components/PageTitle';
import { customerLedgerLink } from '../lib/ledger-links';
import { ledgerReason } from '../lib/ledger-words';

type LedgerEntry = components['schemas']['LedgerEntry'];
type UsageRecord = components['schemas']['UsageRecord'];
const KINDS = ['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment'] as const;
type Kind = (typeof KINDS)[number];

export const ledgerCsvColumns = (t: Translate) => [
  {
    header: t('billing.time'),
    value: (e: LedgerEntry) => (e.created_at ? new Date(e.created_at * 1000).toISOString() : ''),
  },
  { header: t('billing.kind'), value: (e: LedgerEntry) => e.kind },
  { header: t('billing.amountUsd'), value: (e: LedgerEntry) => e.amount_usd },
  { header: t('billing.reference'), value: (e: LedgerEntry) => e.ref },
  { header: t('billing.reason'), value: (e: LedgerEntry) => ledgerReason(t, e) },
];

export const usageCsvColumns = (t: Translate) => [
  {
    header: t('billing.time'),
    value: (u: UsageRecord) => (u.created_at ? new Date(u.created_at * 1000).toISOString() : ''),
  },
  { header: t('billing.reference'), value: (u: UsageRecord) => u.ref },
  { header: t('billing.key'), value: (u: UsageRecord) => u.token?.name ?? '' },
  { header: t('billing.model'), value: (u: UsageRecord) => u.model },
  { header: t('billing.units'), value: (u: UsageRecord) => usageUnits(u) },
  { header: t('billing.costUsd'), value: (u: UsageRecord) => u.cost_usd },
  { header: t('billing.refundedUsd'), value: (u: UsageRecord) => u.refunded_usd },
  { header: t('billing.outcome'), value: (u: UsageRecord) => u.outcome },
  // an image call's answer time; a video task's run (its create call's answer says nothing of it)
  {
    header: t('billing.latency'),
    value: (u: UsageRecord) => (u.video ? (u.video.processing_ms ?? '') : u.latency_ms),
  },
];

/** What a row's units are: images for an image call, the video (seconds, resolution) for a task. */
export const usageUnits = (u: UsageRecord): string | number =>
  u.video
    ? [u.video.duration_s === null ? null : `${u.video.duration_s} s`, u.video.resolution]
        .filter(Boolean)
        .join(' · ') || '—'
    : u.units;

interface Page<R> {
  data: R[];
  has_more: boolean;
  next_cursor: string | null;
}

/** One page's query of a list route: its key and call, from `$api.queryOptions`. */
type PageQuery<R, K extends QueryKey> = (
  limit: number,
  before: string | undefined,
) => { queryKey: K; queryFn: QueryFunction<Page<R>, K> };

/**
 * One filterable, cursor-paged list with a CSV export of every page. `query` is the query of one
 * page for the current filter; `file` and `csvColumns` name and shape the export.
 */
function PagedTable<R extends { id: string }, K extends QueryKey>({
  pager,
  query,
  filter,
  file,
  csvColumns,
  columns,
  scrollX,
  empty,
}: {
  pager: Pager;
  query: PageQuery<R, K>;
  filter: ReactNode;
  file: string;
  csvColumns: Array<{ header: string; value: (row: R) => unknown }>;
  columns: TableColumnsType<R>;
  scrollX: number | undefined;
  empty: string;
}) {
  const t = useT();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const [exporting, setExporting] = useState(false);
  const client = useQueryClient();
  const list = useQuery(query(pager.limit, pager.cursor));
  const exportCsv = async () => {
    setExporting(true);
    try {
      const { rows, truncated } = await fetchAllPages((before) =>
        client.fetchQuery<Page<R>, Error, Page<R>, K>(query(100, before)),
      );
      downloadCsv(file, toCsv(csvColumns, rows));
      if (truncated) void message.warning(t('billing.truncated', { n: rows.length }));
    } catch (err) {
      void message.error(errorText(err));
    } finally {
      setExporting(false);
    }
  };
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Space wrap>
        {filter}
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportCsv()}>
          {t('billing.exportCsv')}
        </Button>
      </Space>
      <ListCard<R>
        query={list}
        rows={list.data?.data}
        columns={columns}
        scrollX={scrollX}
        empty={empty}
        paging={{ pager, nextCursor: list.data?.has_more ? list.data.next_cursor : undefined }}
      />
    </Space>
  );
}

const timeColumn = (t: Translate) => ({
  title: t('billing.time'),
  dataIndex: 'created_at',
  render: (s: number | null) => formatTime(s),
});

/** A list's filter: changing it starts the list again from its first page. */
function useListFilter<T>() {
  const pager = usePager();
  const [value, setValue] = useState<T | undefined>();
  const onChange = (v: T | undefined) => {
    pager.reset();
    setValue(v);
  };
  return { pager, value, onChange };
}

function LedgerTab() {
  const t = useT();
  const { pager, value: kind, onChange } = useListFilter<Kind>();
  const { columns, scrollX } = useLedgerColumns(customerLedgerLink);
  return (
    <PagedTable
      pager={pager}
      query={(limit, before) =>
        $api.queryOptions('get', '/console/api/ledger', { params: { query: { limit, kind, before } } })
      }
      filter={
        <Select<Kind>
          allowClear
          placeholder={t('billing.allKinds')}
          aria-label={t('billing.kind')}
          style={{ width: 180 }}
          value={kind}
          onChange={onChange}
          options={KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) }))}
        />
      }
      file={`mediagate-ledger${kind ? `-${kind}` : ''}.csv`}
      csvColumns={ledgerCsvColumns(t)}
      scrollX={scrollX}
      empty={t('billing.noLedger')}
      columns={columns}
    />
  );
}

const OUTCOMES = ['accepted', 'succeeded', 'partial', 'failed'] as const;
/** A usage record's outcome in words (one the console does not know yet: as the API says it). */
const outcomeText = (t: Translate, o: string) =>
  (OUTCOMES as readonly string[]).includes(o) ? t(`billing.outcomes.${o as (typeof OUTCOMES)[number]}`) : o;

const cost = (v: number) => <span style={{ whiteSpace: 'nowrap' }}>{formatMicroUsd(v)}</span>;

// what a call cost comes right after what it was
const wideUsageColumns = (t: Translate): TableColumnsType<UsageRecord> => [
  timeColumn(t),
  { title: t('billing.model'), dataIndex: 'model', render: (m: string | null) => m ?? '—' },
  { title: t('billing.cost'), dataIndex: 'cost_micro_usd', align: 'right', render: cost },
  {
    title: t('billing.refunded'),
    dataIndex: 'refunded_micro_usd',
    align: 'right',
    render: (v: number) => (v ? formatMicroUsd(v) : '—'),
  },
  { title: t('billing.key'), key: 'key', render: (_v, u) => u.token?.name ?? '—' },
  { title: t('billing.units'), key: 'units', align: 'right', render: (_v, u) => usageUnits(u) },
  { title: t('billing.outcome'), dataIndex: 'outcome', render: (o: string) => <Tag>{outcomeText(t, o)}</Tag> },
  { title: t('billing.reference'), dataIndex: 'ref', ellipsis: true },
];

/** On a phone: the call (model, time, key, units, outcome, reference) in one cell, its cost beside it. */
const narrowUsageColumns = (t: Translate): TableColumnsType<UsageRecord> => [
  {
    title: t('billing.model'),
    key: 'call',
    render: (_v, u) => (
      <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
        <span data-testid="usage-model" style={{ wordBreak: 'break-word' }}>
          {u.model ?? '—'} <Tag style={{ marginInlineEnd: 0 }}>{outcomeText(t, u.outcome)}</Tag>
        </span>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          <ScreenReaderOnly>{t('billing.time')}: </ScreenReaderOnly>
          {formatTime(u.created_at)} · <ScreenReaderOnly>{t('billing.units')}: </ScreenReaderOnly>
          {usageUnits(u)}
          {u.token ? (
            <>
              {' · '}
              <ScreenReaderOnly>{t('billing.key')}: </ScreenReaderOnly>
              {u.token.name}
            </>
          ) : null}
        </Typography.Text>
        {u.ref ? (
          <Typography.Text code style={{ fontSize: 12, wordBreak: 'break-all' }}>
            <ScreenReaderOnly>{t('billing.reference')}: </ScreenReaderOnly>
            {u.ref}
          </Typography.Text>
        ) : null}
      </Space>
    ),
  },
  {
    title: t('billing.cost'),
    key: 'cost',
    align: 'right',
    width: 104,
    render: (_v, u) => (
      <Space orientation="vertical" size={2} align="end">
        {cost(u.cost_micro_usd)}
        {u.refunded_micro_usd ? (
          <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
            {t('billing.refunded')} {formatMicroUsd(u.refunded_micro_usd)}
          </Typography.Text>
        ) : null}
      </Space>
    ),
  },
];

function UsageTab() {
  const t = useT();
  const { pager, value: model, onChange } = useListFilter<string>();
  const compact = useCompactRows();
  const columns = compact ? narrowUsageColumns(t) : wideUsageColumns(t);
  const scrollX = compact ? undefined : 900;
  const models = $api.useQuery('get', '/console/api/models', undefined, {
    select: (r) => r.data,
    staleTime: 600_000,
  });
  return (
    <PagedTable
      pager={pager}
      query={(limit, before) =>
        $api.queryOptions('get', '/console/api/usage', { params: { query: { limit, model, before } } })
      }
      filter={
        <Select<string>
          allowClear
          showSearch
          placeholder={t('billing.allModels')}
          aria-label={t('billing.model')}
          style={{ width: 260, maxWidth: '100%' }}
          value={model}
          loading={models.isPending}
          onChange={onChange}
          options={(models.data ?? []).map((m) => ({ value: m.id, label: m.id }))}
        />
      }
      file={`mediagate-usage${model ? `-${model}` : ''}.csv`}
      csvColumns={usageCsvColumns(t)}
      scrollX={scrollX}
      empty={t('billing.noUsage')}
      columns={columns}
    />
  );
}

export function BillingPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  // the figure a customer comes to billing for, above the lines that make it
  const balance = $api.useQuery('get', '/console/api/balance');
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.billing')}</PageTitle>
      <Space wrap size="middle" align="baseline">
        <Typography.Text type="secondary">{t('dashboard.balance')}</Typography.Text>
        <Typography.Text strong style={{ fontSize: 20 }} data-testid="billing-balance">
          {balance.data ? formatMicroUsd(balance.data.balance_micro_usd) : '—'}
        </Typography.Text>
        <Link to="/console/topup">{t('nav.topup')}</Link>
      </Space>
      <Tabs
        activeKey={params.get('tab') === 'usage' ? 'usage' : 'ledger'}
        onChange={(k) => setParams(k === 'usage' ? { tab: 'usage' } : {})}
        items={[
          { key: 'ledger', label: t('billing.ledger'), children: <LedgerTab /> },
          { key: 'usage', label: t('billing.usage'), children: <UsageTab /> },
        ]}
      />
    </Space>
  );
}
