import { DownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Select, Space, Table, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorAlert, errorText } from '../components/ErrorAlert';
import { type Translate, useT } from '../i18n/i18n';
import { downloadCsv, fetchAllPages, toCsv } from '../lib/csv';
import { formatTime, formatUsd } from '../lib/format';

type LedgerEntry = components['schemas']['LedgerEntry'];
type UsageRecord = components['schemas']['UsageRecord'];
const KINDS = ['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment'] as const;
type Kind = (typeof KINDS)[number];

/** Cursor paging: the cursors of the pages before the current one. */
function usePager() {
  const [cursors, setCursors] = useState<string[]>([]);
  const [limit, setLimit] = useState(20);
  return {
    before: cursors[cursors.length - 1],
    limit,
    page: cursors.length + 1,
    reset: () => setCursors([]),
    next: (cursor: string | null) => cursor && setCursors((c) => [...c, cursor]),
    previous: () => setCursors((c) => c.slice(0, -1)),
    setLimit: (n: number) => {
      setCursors([]);
      setLimit(n);
    },
  };
}
type Pager = ReturnType<typeof usePager>;

function PagerBar({
  pager,
  hasMore,
  nextCursor,
  t,
}: {
  pager: Pager;
  hasMore?: boolean;
  nextCursor?: string | null;
  t: Translate;
}) {
  return (
    <Space wrap style={{ padding: 12 }}>
      <Button disabled={pager.page === 1} onClick={pager.previous}>
        {t('common.previous')}
      </Button>
      <Typography.Text aria-live="polite">{t('common.page', { page: pager.page })}</Typography.Text>
      <Button disabled={!hasMore} onClick={() => pager.next(nextCursor ?? null)}>
        {t('common.next')}
      </Button>
      <Select
        aria-label={t('common.pageSize')}
        value={pager.limit}
        onChange={pager.setLimit}
        options={[20, 50, 100].map((n) => ({ value: n, label: t('common.perPage', { n }) }))}
      />
    </Space>
  );
}

export const ledgerCsvColumns = (t: Translate) => [
  {
    header: t('billing.time'),
    value: (e: LedgerEntry) => (e.created_at ? new Date(e.created_at * 1000).toISOString() : ''),
  },
  { header: t('billing.kind'), value: (e: LedgerEntry) => e.kind },
  { header: t('billing.amountUsd'), value: (e: LedgerEntry) => e.amount_usd },
  { header: t('billing.reference'), value: (e: LedgerEntry) => e.ref },
  { header: t('billing.reason'), value: (e: LedgerEntry) => e.reason },
];

export const usageCsvColumns = (t: Translate) => [
  {
    header: t('billing.time'),
    value: (u: UsageRecord) => (u.created_at ? new Date(u.created_at * 1000).toISOString() : ''),
  },
  { header: t('billing.reference'), value: (u: UsageRecord) => u.ref },
  { header: t('billing.key'), value: (u: UsageRecord) => u.token?.name ?? '' },
  { header: t('billing.model'), value: (u: UsageRecord) => u.model },
  { header: t('billing.units'), value: (u: UsageRecord) => u.units },
  { header: t('billing.costUsd'), value: (u: UsageRecord) => u.cost_usd },
  { header: t('billing.refundedUsd'), value: (u: UsageRecord) => u.refunded_usd },
  { header: t('billing.outcome'), value: (u: UsageRecord) => u.outcome },
  { header: t('billing.latency'), value: (u: UsageRecord) => u.latency_ms },
];

function LedgerTab() {
  const t = useT();
  const { message } = App.useApp();
  const [kind, setKind] = useState<Kind | undefined>();
  const pager = usePager();
  const [exporting, setExporting] = useState(false);
  const ledger = useQuery({
    queryKey: ['ledger', kind, pager.before, pager.limit],
    queryFn: () =>
      unwrap(
        api.GET('/console/api/ledger', {
          params: { query: { limit: pager.limit, kind, before: pager.before } },
        }),
      ),
  });
  const exportCsv = async () => {
    setExporting(true);
    try {
      const { rows, truncated } = await fetchAllPages((before) =>
        unwrap(api.GET('/console/api/ledger', { params: { query: { limit: 100, kind, before } } })),
      );
      downloadCsv(`mediagate-ledger${kind ? `-${kind}` : ''}.csv`, toCsv(ledgerCsvColumns(t), rows));
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
        <Select<Kind>
          allowClear
          placeholder={t('billing.allKinds')}
          aria-label={t('billing.kind')}
          style={{ width: 180 }}
          value={kind}
          onChange={(v) => {
            pager.reset();
            setKind(v);
          }}
          options={KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) }))}
        />
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportCsv()}>
          {t('billing.exportCsv')}
        </Button>
      </Space>
      {ledger.error ? <ErrorAlert error={ledger.error} onRetry={() => void ledger.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<LedgerEntry>
          rowKey="id"
          size="small"
          loading={ledger.isPending}
          dataSource={ledger.data?.data ?? []}
          pagination={false}
          scroll={{ x: 640 }}
          locale={{ emptyText: <Empty description={t('billing.noLedger')} /> }}
          columns={[
            {
              title: t('billing.time'),
              dataIndex: 'created_at',
              render: (s: number | null) => formatTime(s),
            },
            { title: t('billing.kind'), dataIndex: 'kind', render: (k: Kind) => <Tag>{t(`kind.${k}`)}</Tag> },
            {
              title: t('billing.amount'),
              dataIndex: 'amount_usd',
              align: 'right',
              render: (v: number) => (
                <span style={{ color: v < 0 ? '#cf1322' : '#389e0d' }}>{formatUsd(v)}</span>
              ),
            },
            { title: t('billing.reference'), dataIndex: 'ref', render: (r: string | null) => r ?? '—' },
            { title: t('billing.reason'), dataIndex: 'reason', render: (r: string | null) => r ?? '—' },
          ]}
        />
        <PagerBar pager={pager} hasMore={ledger.data?.has_more} nextCursor={ledger.data?.next_cursor} t={t} />
      </Card>
    </Space>
  );
}

function UsageTab() {
  const t = useT();
  const { message } = App.useApp();
  const [model, setModel] = useState<string | undefined>();
  const pager = usePager();
  const [exporting, setExporting] = useState(false);
  const models = useQuery({
    queryKey: ['models'],
    queryFn: async () => (await unwrap(api.GET('/console/api/models'))).data,
    staleTime: 600_000,
  });
  const usage = useQuery({
    queryKey: ['usage', model, pager.before, pager.limit],
    queryFn: () =>
      unwrap(
        api.GET('/console/api/usage', {
          params: { query: { limit: pager.limit, model, before: pager.before } },
        }),
      ),
  });
  const exportCsv = async () => {
    setExporting(true);
    try {
      const { rows, truncated } = await fetchAllPages((before) =>
        unwrap(api.GET('/console/api/usage', { params: { query: { limit: 100, model, before } } })),
      );
      downloadCsv(`mediagate-usage${model ? `-${model}` : ''}.csv`, toCsv(usageCsvColumns(t), rows));
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
        <Select<string>
          allowClear
          showSearch
          placeholder={t('billing.allModels')}
          aria-label={t('billing.model')}
          style={{ width: 260 }}
          value={model}
          loading={models.isPending}
          onChange={(v) => {
            pager.reset();
            setModel(v);
          }}
          options={(models.data ?? []).map((m) => ({ value: m.id, label: m.id }))}
        />
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportCsv()}>
          {t('billing.exportCsv')}
        </Button>
      </Space>
      {usage.error ? <ErrorAlert error={usage.error} onRetry={() => void usage.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<UsageRecord>
          rowKey="id"
          size="small"
          loading={usage.isPending}
          dataSource={usage.data?.data ?? []}
          pagination={false}
          scroll={{ x: 900 }}
          locale={{ emptyText: <Empty description={t('billing.noUsage')} /> }}
          columns={[
            {
              title: t('billing.time'),
              dataIndex: 'created_at',
              render: (s: number | null) => formatTime(s),
            },
            { title: t('billing.model'), dataIndex: 'model', render: (m: string | null) => m ?? '—' },
            { title: t('billing.key'), key: 'key', render: (_v, u) => u.token?.name ?? '—' },
            { title: t('billing.units'), dataIndex: 'units', align: 'right' },
            {
              title: t('billing.cost'),
              dataIndex: 'cost_usd',
              align: 'right',
              render: (v: number) => formatUsd(v),
            },
            {
              title: t('billing.refunded'),
              dataIndex: 'refunded_usd',
              align: 'right',
              render: (v: number) => (v ? formatUsd(v) : '—'),
            },
            { title: t('billing.outcome'), dataIndex: 'outcome', render: (o: string) => <Tag>{o}</Tag> },
            { title: t('billing.reference'), dataIndex: 'ref', ellipsis: true },
          ]}
        />
        <PagerBar pager={pager} hasMore={usage.data?.has_more} nextCursor={usage.data?.next_cursor} t={t} />
      </Card>
    </Space>
  );
}

export function BillingPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.billing')}
      </Typography.Title>
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
