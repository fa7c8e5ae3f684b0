import { useMutation } from '@tanstack/react-query';
import { Alert, Input, Space, type TableColumnsType, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { $api, api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ScreenReaderOnly, useCompactRows } from '../../components/CompactRows';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ListCard, usePager } from '../../components/ListCard';
import { useT } from '../../i18n/i18n';
import { formatDate, formatUsd } from '../../lib/format';
import { looksLikeTransferReference, transferReference } from '../../lib/reference';
import { PageTitle } from '../../components/PageTitle';

export type Account = components['schemas']['Account'];

export function AccountsPage() {
  const t = useT();
  const [email, setEmail] = useState<string | undefined>();
  const pager = usePager();
  const navigate = useNavigate();
  const [badReference, setBadReference] = useState(false);
  // a memo's reference opens the account it belongs to, to credit the transfer there
  const byReference = useMutation({
    mutationFn: (reference: string) =>
      unwrap(api.GET('/admin/api/transfer-references/{reference}', { params: { path: { reference } } })),
    onSuccess: (r) => {
      const { account, reference } = r as { account: Account; reference: string };
      navigate(`/admin/accounts/${account.id}?reference=${encodeURIComponent(reference)}`);
    },
  });
  const after = pager.cursor;
  const accounts = $api.useQuery('get', '/admin/api/accounts', {
    params: { query: { email, after, limit: pager.limit } },
  });
  const data = accounts.data as (typeof accounts.data & { next_cursor?: string | null }) | undefined;
  const compact = useCompactRows();
  const status = (a: Account) => (
    <Space size={4} wrap>
      <Tag color={a.status === 'active' ? 'green' : 'red'}>
        {t(`admin.status.${a.status}` as 'admin.status.active')}
      </Tag>
      {a.role === 'admin' ? <Tag color="blue">{t('admin.operator')}</Tag> : null}
    </Space>
  );
  const emailLink = (a: Account) => (
    <Link to={`/admin/accounts/${a.id}`} style={{ wordBreak: 'break-all' }}>
      {a.email}
    </Link>
  );
  const wide: TableColumnsType<Account> = [
    { title: t('field.email'), dataIndex: 'email', render: (_e: string, a) => emailLink(a) },
    { title: 'ID', dataIndex: 'id', render: (id: string) => <Typography.Text code>{id}</Typography.Text> },
    { title: t('videos.status'), dataIndex: 'status', render: (_s: string, a) => status(a) },
    {
      title: t('dashboard.balance'),
      dataIndex: 'balance_usd',
      align: 'right',
      render: (v: number) => formatUsd(v),
    },
    { title: t('videos.created'), dataIndex: 'created_at', render: (s: number | null) => formatDate(s) },
  ];
  // a phone: the account (e-mail, state, id, since when) in one cell, its balance beside it
  const narrow: TableColumnsType<Account> = [
    {
      title: t('field.email'),
      key: 'account',
      render: (_v, a) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          {emailLink(a)}
          {status(a)}
          <Typography.Text type="secondary" style={{ fontSize: 12, wordBreak: 'break-all' }}>
            <ScreenReaderOnly>ID: </ScreenReaderOnly>
            {a.id}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('videos.created')}: </ScreenReaderOnly>
            {formatDate(a.created_at)}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('dashboard.balance'),
      dataIndex: 'balance_usd',
      align: 'right',
      width: 96,
      render: (v: number) => formatUsd(v),
    },
  ];
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.accounts')}</PageTitle>
      <Input.Search
        aria-label={t('admin.searchEmail')}
        placeholder={t('admin.searchEmailOrReference')}
        allowClear
        enterButton
        style={{ maxWidth: 420 }}
        loading={byReference.isPending}
        onSearch={(v) => {
          byReference.reset();
          setBadReference(false);
          if (looksLikeTransferReference(v)) {
            const reference = transferReference(v);
            if (reference) return byReference.mutate(reference);
            return setBadReference(true);
          }
          pager.reset();
          setEmail(v.trim() || undefined);
        }}
      />
      {byReference.error ? <ErrorAlert error={byReference.error} /> : null}
      {badReference ? <Alert type="warning" showIcon role="alert" title={t('admin.referenceShape')} /> : null}
      <ListCard<Account>
        query={accounts}
        rows={data?.data}
        scrollX={compact ? undefined : 720}
        empty={t('admin.noAccounts')}
        paging={{ pager, nextCursor: data?.has_more ? data.next_cursor : undefined }}
        columns={compact ? narrow : wide}
      />
    </Space>
  );
}
