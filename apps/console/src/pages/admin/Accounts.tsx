import { useMutation } from '@tanstack/react-query';
import { Alert, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { $api, api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
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
        scrollX={720}
        empty={t('admin.noAccounts')}
        paging={{ pager, nextCursor: data?.has_more ? data.next_cursor : undefined }}
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
    </Space>
  );
}
