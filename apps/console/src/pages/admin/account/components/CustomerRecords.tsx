import { Button, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { $api } from '../../../../api/client';
import type { components } from '../../../../api/schema';
import { AuditLog } from '../../../../components/AuditLog';
import { ledgerColumns } from '../../../../components/ledger-columns';
import { ListCard, usePager } from '../../../../components/ListCard';
import { useT } from '../../../../i18n/i18n';
import { formatCny, formatDate, formatTime, formatUsd } from '../../../../lib/format';
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
  return (
    <ListCard<LedgerEntry>
      query={list}
      rows={list.data?.data}
      scrollX={640}
      empty={t('billing.noLedger')}
      paging={{ pager, nextCursor: list.data?.has_more ? list.data.next_cursor : undefined }}
      columns={ledgerColumns(t)}
    />
  );
}

function TopUps({ accountId }: { accountId: string }) {
  const t = useT();
  const pager = usePager();
  const [refunding, setRefunding] = useState<TopUp | null>(null);
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/topups', {
    params: { path: { id: accountId }, query: { limit: pager.limit, before: pager.cursor } },
  });
  return (
    <>
      <ListCard<TopUp>
        query={list}
        rows={list.data?.data}
        scrollX={760}
        empty={t('topup.noHistory')}
        paging={{ pager, nextCursor: list.data?.has_more ? list.data.next_cursor : undefined }}
        columns={[
          { title: t('billing.time'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
          {
            title: t('videos.status'),
            dataIndex: 'status',
            render: (s: TopUp['status']) => (
              <Tag color={s === 'credited' ? 'success' : undefined}>{t(`topup.status.${s}`)}</Tag>
            ),
          },
          { title: t('topup.credit'), render: (_v, r) => formatUsd(r.credit_usd + r.bonus_usd) },
          {
            title: t('topup.amount'),
            dataIndex: 'amount_cny',
            render: (v: number, r) => (
              <span>
                {formatCny(v)}
                {r.refunded_cny > 0 ? (
                  <Tag color="orange" style={{ marginLeft: 8 }}>
                    {t('refund.refundedTag', { amount: formatCny(r.refunded_cny) })}
                  </Tag>
                ) : null}
              </span>
            ),
          },
          {
            title: t('topup.provider'),
            dataIndex: 'provider',
            render: (p: TopUp['provider']) => t(`topup.provider.${p}`),
          },
          {
            title: 'ID',
            dataIndex: 'id',
            render: (id: string) => (
              <Typography.Text code style={{ wordBreak: 'break-all' }}>
                {id}
              </Typography.Text>
            ),
          },
          {
            title: t('refund.column'),
            render: (_v, r) =>
              r.status === 'credited' || r.status === 'paid' || r.refunded_cny > 0 ? (
                <Button size="small" danger={r.refunded_cny < r.amount_cny} onClick={() => setRefunding(r)}>
                  {r.refunded_cny < r.amount_cny ? t('refund.submit') : t('refund.column')}
                </Button>
              ) : null,
          },
        ]}
      />
      {refunding ? <TopUpRefunds topUp={refunding} open onClose={() => setRefunding(null)} /> : null}
    </>
  );
}

function Keys({ accountId }: { accountId: string }) {
  const t = useT();
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/keys', { params: { path: { id: accountId } } });
  return (
    <ListCard<Token>
      query={list}
      rows={list.data?.data}
      scrollX={720}
      empty={t('keys.empty')}
      columns={[
        {
          title: t('keys.name'),
          dataIndex: 'name',
          render: (name: string, k) => (
            <span>
              <Typography.Text strong style={{ wordBreak: 'break-word' }}>
                {name}
              </Typography.Text>{' '}
              <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
                {k.display_prefix}
              </Typography.Text>
            </span>
          ),
        },
        {
          title: t('keys.status'),
          dataIndex: 'status',
          render: (s: Token['status']) => (
            <Tag color={s === 'active' ? 'green' : 'default'}>{t(`keys.status.${s}`)}</Tag>
          ),
        },
        {
          title: t('keys.quota'),
          render: (_v, k) =>
            `${formatUsd(k.used_usd)} / ${k.quota_usd === null ? t('keys.unlimited') : formatUsd(k.quota_usd)}`,
        },
        {
          title: t('keys.expires'),
          dataIndex: 'expires_at',
          render: (s: number | null) => (s ? formatDate(s) : t('keys.never')),
        },
        { title: t('keys.lastUsed'), dataIndex: 'last_used_at', render: (s: number | null) => formatTime(s) },
      ]}
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

/** Everything the account did and had done to it, one tab each: ledger, top-ups, keys, tasks, audit. */
export function CustomerRecords({ accountId }: { accountId: string }) {
  const t = useT();
  return (
    <Tabs
      destroyOnHidden
      items={[
        { key: 'ledger', label: t('billing.ledger'), children: <Ledger accountId={accountId} /> },
        { key: 'topups', label: t('admin.topups'), children: <TopUps accountId={accountId} /> },
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
