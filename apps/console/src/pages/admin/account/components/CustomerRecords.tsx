import { Button, Space, type TableColumnsType, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { $api } from '../../../../api/client';
import type { components } from '../../../../api/schema';
import { AuditLog } from '../../../../components/AuditLog';
import { ScreenReaderOnly, useCompactRows } from '../../../../components/CompactRows';
import { useLedgerColumns } from '../../../../components/ledger-columns';
import { ListCard, usePager } from '../../../../components/ListCard';
import { useT } from '../../../../i18n/i18n';
import { formatCny, formatDate, formatTime, formatUsd } from '../../../../lib/format';
import { operatorLedgerLink } from '../../../../lib/ledger-links';
import { TaskTable } from '../../tasks/components/TaskTable';
import { TopUpRefunds } from './TopUpRefunds';

type LedgerEntry = components['schemas']['LedgerEntry'];
type TopUp = components['schemas']['TopUp'];
type Token = components['schemas']['Token'];

function Ledger({ accountId }: { accountId: string }) {
  const t = useT();
  const pager = usePager();
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/ledger', {
    params: { path: { id: accountId }, query: { limit: pager.limit, before: pager.cursor } },
  });
  const { columns, scrollX } = useLedgerColumns(operatorLedgerLink(accountId));
  return (
    <ListCard<LedgerEntry>
      query={list}
      rows={list.data?.data}
      scrollX={scrollX}
      empty={t('billing.noLedger')}
      paging={{ pager, nextCursor: list.data?.has_more ? list.data.next_cursor : undefined }}
      columns={columns}
    />
  );
}

/** The account's top-ups; `highlight`: the order a ledger entry's link opened the tab for. */
function TopUps({ accountId, highlight }: { accountId: string; highlight: string | null }) {
  const t = useT();
  const pager = usePager();
  const [refunding, setRefunding] = useState<TopUp | null>(null);
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/topups', {
    params: { path: { id: accountId }, query: { limit: pager.limit, before: pager.cursor } },
  });
  // the linked order itself, wherever it is in the list: shown above the page when not on it
  const linked = $api.useQuery(
    'get',
    '/admin/api/accounts/{id}/topups',
    { params: { path: { id: accountId }, query: { order: highlight ?? undefined } } },
    { enabled: Boolean(highlight), select: (r) => r.data[0] },
  );
  const page = list.data?.data;
  const rows =
    page && linked.data && !page.some((r) => r.id === linked.data?.id) ? [linked.data, ...page] : page;
  const compact = useCompactRows();
  const status = (r: TopUp) => (
    <Tag color={r.status === 'credited' ? 'success' : undefined}>{t(`topup.status.${r.status}`)}</Tag>
  );
  const refunded = (r: TopUp) =>
    r.refunded_cny > 0 ? (
      <Tag color="orange">{t('refund.refundedTag', { amount: formatCny(r.refunded_cny) })}</Tag>
    ) : null;
  const refund = (r: TopUp) =>
    r.status === 'credited' || r.status === 'paid' || r.refunded_cny > 0 ? (
      <Button size="small" danger={r.refunded_cny < r.amount_cny} onClick={() => setRefunding(r)}>
        {r.refunded_cny < r.amount_cny ? t('refund.submit') : t('refund.column')}
      </Button>
    ) : null;
  const orderId = (id: string) => (
    <Typography.Text code style={{ wordBreak: 'break-all' }}>
      {id}
    </Typography.Text>
  );
  const wide: TableColumnsType<TopUp> = [
    { title: t('billing.time'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
    { title: t('videos.status'), dataIndex: 'status', render: (_s, r) => status(r) },
    { title: t('topup.credit'), key: 'credit', render: (_v, r) => formatUsd(r.credit_usd + r.bonus_usd) },
    {
      title: t('topup.amount'),
      dataIndex: 'amount_cny',
      render: (v: number, r) => (
        <Space size={8} wrap>
          {formatCny(v)}
          {refunded(r)}
        </Space>
      ),
    },
    {
      title: t('topup.provider'),
      dataIndex: 'provider',
      render: (p: TopUp['provider']) => t(`topup.provider.${p}`),
    },
    { title: 'ID', dataIndex: 'id', render: (id: string) => orderId(id) },
    { title: t('refund.column'), key: 'refund', render: (_v, r) => refund(r) },
  ];
  // a phone: the order (state, id, when, through whom) in one cell, its amounts and refund beside it
  const narrow: TableColumnsType<TopUp> = [
    {
      title: t('videos.status'),
      key: 'order',
      render: (_v, r) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          <Space size={4} wrap>
            {status(r)}
            {refunded(r)}
          </Space>
          <span style={{ fontSize: 12 }}>
            <ScreenReaderOnly>ID: </ScreenReaderOnly>
            {orderId(r.id)}
          </span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('billing.time')}: </ScreenReaderOnly>
            {formatTime(r.created_at)} · <ScreenReaderOnly>{t('topup.provider')}: </ScreenReaderOnly>
            {t(`topup.provider.${r.provider}`)}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('topup.credit'),
      key: 'credit',
      align: 'right',
      width: 112,
      render: (_v, r) => (
        <Space orientation="vertical" size={4} align="end">
          <span>{formatUsd(r.credit_usd + r.bonus_usd)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('topup.amount')}: </ScreenReaderOnly>
            {formatCny(r.amount_cny)}
          </Typography.Text>
          {refund(r)}
        </Space>
      ),
    },
  ];
  return (
    <>
      <ListCard<TopUp>
        query={list}
        rows={rows}
        scrollX={compact ? undefined : 760}
        highlight={highlight}
        empty={t('topup.noHistory')}
        paging={{ pager, nextCursor: list.data?.has_more ? list.data.next_cursor : undefined }}
        columns={compact ? narrow : wide}
      />
      {refunding ? <TopUpRefunds topUp={refunding} open onClose={() => setRefunding(null)} /> : null}
    </>
  );
}

function Keys({ accountId }: { accountId: string }) {
  const t = useT();
  const compact = useCompactRows();
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/keys', { params: { path: { id: accountId } } });
  const name = (k: Token) => (
    <span>
      <Typography.Text strong style={{ wordBreak: 'break-word' }}>
        {k.name}
      </Typography.Text>{' '}
      <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
        {k.display_prefix}
      </Typography.Text>
    </span>
  );
  const status = (k: Token) => <Tag color={k.status === 'active' ? 'green' : 'default'}>{t(`keys.status.${k.status}`)}</Tag>;
  const quota = (k: Token) =>
    `${formatUsd(k.used_usd)} / ${k.quota_usd === null ? t('keys.unlimited') : formatUsd(k.quota_usd)}`;
  const expires = (k: Token) => (k.expires_at ? formatDate(k.expires_at) : t('keys.never'));
  const wide: TableColumnsType<Token> = [
    { title: t('keys.name'), key: 'name', render: (_v, k) => name(k) },
    { title: t('keys.status'), key: 'status', render: (_v, k) => status(k) },
    { title: t('keys.quota'), key: 'quota', render: (_v, k) => quota(k) },
    { title: t('keys.expires'), key: 'expires', render: (_v, k) => expires(k) },
    { title: t('keys.lastUsed'), dataIndex: 'last_used_at', render: (s: number | null) => formatTime(s) },
  ];
  // a phone: the key (name, state, expiry, last use) in one cell, what it used of its quota beside it
  const narrow: TableColumnsType<Token> = [
    {
      title: t('keys.name'),
      key: 'key',
      render: (_v, k) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          {name(k)}
          <span>{status(k)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('keys.expires')}: {expires(k)} · {t('keys.lastUsed')}: {formatTime(k.last_used_at)}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('keys.quota'),
      key: 'quota',
      align: 'right',
      width: 120,
      render: (_v, k) => <span style={{ whiteSpace: 'nowrap' }}>{quota(k)}</span>,
    },
  ];
  return (
    <ListCard<Token>
      query={list}
      rows={list.data?.data}
      scrollX={compact ? undefined : 720}
      empty={t('keys.empty')}
      columns={compact ? narrow : wide}
    />
  );
}

function Tasks({ accountId }: { accountId: string }) {
  const pager = usePager();
  const tasks = $api.useQuery('get', '/admin/api/tasks', {
    params: { query: { account_id: accountId, limit: pager.limit, after: pager.cursor } },
  });
  return <TaskTable query={tasks} pager={pager} showAccount={false} />;
}

const TABS = ['ledger', 'topups', 'keys', 'tasks', 'audit'];

/**
 * Everything the account did and had done to it, one tab each: ledger, top-ups, keys, tasks, audit.
 * The open tab is in the address (`?tab=`), so a ledger entry links to its order in the top-ups tab
 * (`?tab=topups&order=`).
 */
export function CustomerRecords({ accountId }: { accountId: string }) {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab');
  return (
    <Tabs
      destroyOnHidden
      activeKey={tab && TABS.includes(tab) ? tab : 'ledger'}
      onChange={(key) =>
        setParams(
          (p) => {
            const next = new URLSearchParams(p);
            next.set('tab', key);
            next.delete('order');
            return next;
          },
          { replace: true },
        )
      }
      items={[
        { key: 'ledger', label: t('billing.ledger'), children: <Ledger accountId={accountId} /> },
        {
          key: 'topups',
          label: t('admin.topups'),
          children: <TopUps accountId={accountId} highlight={params.get('order')} />,
        },
        { key: 'keys', label: t('nav.keys'), children: <Keys accountId={accountId} /> },
        { key: 'tasks', label: t('nav.tasks'), children: <Tasks accountId={accountId} /> },
        {
          key: 'audit',
          label: t('nav.audit'),
          children: <AuditLog accountId={accountId} title={t('admin.accountAudit')} />,
        },
      ]}
    />
  );
}
