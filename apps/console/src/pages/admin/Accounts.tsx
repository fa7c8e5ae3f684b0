import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Input, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { formatDate, formatUsd } from '../../lib/format';

export type Account = components['schemas']['Account'];

export function AccountsPage() {
  const t = useT();
  const [email, setEmail] = useState<string | undefined>();
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const accounts = useQuery({
    queryKey: ['admin', 'accounts', email, after],
    queryFn: () => unwrap(api.GET('/admin/api/accounts', { params: { query: { email, after, limit: 20 } } })),
  });
  const data = accounts.data as (typeof accounts.data & { next_cursor?: string | null }) | undefined;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.accounts')}
      </Typography.Title>
      <Input.Search
        aria-label={t('admin.searchEmail')}
        placeholder={t('admin.searchEmail')}
        allowClear
        enterButton
        style={{ maxWidth: 420 }}
        onSearch={(v) => {
          setCursors([]);
          setEmail(v.trim() || undefined);
        }}
      />
      {accounts.error ? <ErrorAlert error={accounts.error} onRetry={() => void accounts.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<Account>
          rowKey="id"
          size="small"
          loading={accounts.isPending}
          dataSource={data?.data ?? []}
          pagination={false}
          scroll={{ x: 720 }}
          locale={{ emptyText: <Empty description={t('admin.noAccounts')} /> }}
          columns={[
            {
              title: t('field.email'),
              dataIndex: 'email',
              render: (e: string, a) => <Link to={`/admin/accounts/${a.id}`}>{e}</Link>,
            },
            {
              title: 'ID',
              dataIndex: 'id',
              render: (id: string) => <Typography.Text code>{id}</Typography.Text>,
            },
            {
              title: t('videos.status'),
              dataIndex: 'status',
              render: (s: string, a) => (
                <Space size={4}>
                  <Tag color={s === 'active' ? 'green' : 'red'}>
                    {t(`admin.status.${s}` as 'admin.status.active')}
                  </Tag>
                  {a.role === 'admin' ? <Tag color="blue">{t('admin.operator')}</Tag> : null}
                </Space>
              ),
            },
            {
              title: t('dashboard.balance'),
              dataIndex: 'balance_usd',
              align: 'right',
              render: (v: number) => formatUsd(v),
            },
            {
              title: t('videos.created'),
              dataIndex: 'created_at',
              render: (s: number | null) => formatDate(s),
            },
          ]}
        />
        <Space style={{ padding: 12 }}>
          <Button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
            {t('common.previous')}
          </Button>
          <Button
            disabled={!data?.has_more || !data?.next_cursor}
            onClick={() => data?.next_cursor && setCursors((c) => [...c, data.next_cursor as string])}
          >
            {t('common.next')}
          </Button>
        </Space>
      </Card>
    </Space>
  );
}
