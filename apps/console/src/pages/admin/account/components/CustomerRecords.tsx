import { Tabs, Tag, Typography } from 'antd';
import { $api } from '../../../../api/client';
import type { components } from '../../../../api/schema';
import { AuditLog } from '../../../../components/AuditLog';
import { ListCard, usePager } from '../../../../components/ListCard';
import { useT } from '../../../../i18n/i18n';
import { formatDate, formatTime, formatUsd } from '../../../../lib/format';
import { TaskTable } from '../../tasks/components/TaskTable';

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
      columns={[
        { title: t('billing.time'), dataIndex: 'created_at', render: (s: number | null) => formatTime(s) },
        {
          title: t('billing.kind'),
          dataIndex: 'kind',
          render: (k: LedgerEntry['kind']) => <Tag>{t(`kind.${k}`)}</Tag>,
        },
        {
          title: t('billing.amount'),
          dataIndex: 'amount_usd',
          align: 'right',
          render: (v: number) => <span style={{ color: v < 0 ? '#cf1322' : '#389e0d' }}>{formatUsd(v)}</span>,
        },
        { title: t('billing.reference'), dataIndex: 'ref', render: (r: string | null) => r ?? '—' },
        { title: t('billing.reason'), dataIndex: 'reason', render: (r: string | null) => r ?? '—' },
      ]}
    />
  );
}

function TopUps({ accountId }: { accountId: string }) {
  const t = useT();
  const pager = usePager();
  const list = $api.useQuery('get', '/admin/api/accounts/{id}/topups', {
    params: { path: { id: accountId }, query: { limit: pager.limit, before: pager.cursor } },
  });
  return (
    <ListCard<TopUp>
      query={list}
      rows={list.data?.data}
      scrollX={640}
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
        { title: t('topup.amount'), dataIndex: 'amount_cny', render: (v: number) => `¥${v}` },
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
      ]}
    />
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
