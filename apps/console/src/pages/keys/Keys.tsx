import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Modal, Space, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useState } from 'react';
import { $api, api, keyOf, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useCompactRows } from '../../components/CompactRows';
import { ErrorAlert, useErrorText } from '../../components/ErrorAlert';
import { SecretReveal } from '../../components/SecretReveal';
import { useT } from '../../i18n/i18n';
import { formatDate, formatTime, formatUsd } from '../../lib/format';
import { CreateKeyForm, toCreateBody } from './components/CreateKeyForm';
import { KeyActions } from './components/KeyActions';
import { RenameKeyModal } from './components/RenameKeyModal';
import { PageTitle } from '../../components/PageTitle';

export type Token = components['schemas']['Token'];

export function KeysPage() {
  const t = useT();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const client = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [renaming, setRenaming] = useState<Token | null>(null);

  const tokens = $api.useQuery('get', '/console/api/tokens', undefined, { select: (r) => r.data });
  const refresh = () => client.invalidateQueries({ queryKey: keyOf('/console/api/tokens') });
  const create = $api.useMutation('post', '/console/api/tokens', {
    onSuccess: (r) => {
      setCreating(false);
      setCreated({ name: r.name, key: r.key });
      void refresh();
    },
  });
  const patch = useMutation({
    mutationFn: (v: { id: string; body: { name?: string; status?: 'active' | 'disabled' } }) =>
      unwrap(api.PATCH('/console/api/tokens/{id}', { params: { path: { id: v.id } }, body: v.body })),
    onSuccess: () => {
      setRenaming(null);
      void message.success(t('common.saved'));
      void refresh();
    },
    onError: (err) => void message.error(errorText(err)),
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/console/api/tokens/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void message.success(t('keys.deleted'));
      void refresh();
    },
    onError: (err) => void message.error(errorText(err)),
  });

  // a phone gets two columns: the key with its status, spend, expiry, use and limits; and its actions
  const compact = useCompactRows();
  const spend = (k: Token) =>
    k.quota_usd === null
      ? `${formatUsd(k.used_usd)} / ${t('keys.unlimited')}`
      : `${formatUsd(k.used_usd)} / ${formatUsd(k.quota_usd)}`;
  const statusTag = (s: Token['status']) => (
    <Tag color={s === 'active' ? 'green' : 'default'}>{t(`keys.status.${s}`)}</Tag>
  );
  const limitLines = (k: Token) => (
    <>
      <span>
        {t('keys.models')}: {k.allowed_models?.join(', ') ?? t('keys.all')}
      </span>
      <span>
        {t('keys.ips')}: {k.allowed_ips?.join(', ') ?? t('keys.all')}
      </span>
    </>
  );
  const actions = (k: Token) => (
    <KeyActions
      token={k}
      onRename={() => setRenaming(k)}
      onToggle={() =>
        patch.mutate({ id: k.id, body: { status: k.status === 'active' ? 'disabled' : 'active' } })
      }
      onDelete={() => remove.mutateAsync(k.id)}
    />
  );
  const nameCell = (k: Token) => (
    <>
      <Typography.Text strong style={{ wordBreak: 'break-word' }}>
        {k.name}
      </Typography.Text>
      <Typography.Text type="secondary" code style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
        {k.display_prefix}
      </Typography.Text>
    </>
  );
  const wideColumns: TableColumnsType<Token> = [
    {
      title: t('keys.name'),
      dataIndex: 'name',
      render: (_name: string, k) => (
        <Space orientation="vertical" size={0}>
          {nameCell(k)}
        </Space>
      ),
    },
    { title: t('keys.status'), dataIndex: 'status', render: statusTag },
    { title: t('keys.quota'), render: (_v, k) => spend(k) },
    {
      title: t('keys.expires'),
      dataIndex: 'expires_at',
      render: (s: number | null) => (s ? formatDate(s) : t('keys.never')),
    },
    {
      title: t('keys.limits'),
      render: (_v, k) => (
        <Space orientation="vertical" size={0} style={{ fontSize: 12 }}>
          {limitLines(k)}
        </Space>
      ),
    },
    { title: t('keys.lastUsed'), dataIndex: 'last_used_at', render: (s: number | null) => formatTime(s) },
    { title: t('common.actions'), fixed: 'right', render: (_v, k) => actions(k) },
  ];
  const compactColumns: TableColumnsType<Token> = [
    {
      title: t('keys.name'),
      dataIndex: 'name',
      render: (_name: string, k) => (
        <Space orientation="vertical" size={2} style={{ fontSize: 12 }}>
          {nameCell(k)}
          <div>{statusTag(k.status)}</div>
          <span>
            {t('keys.quota')}: {spend(k)}
          </span>
          <span>
            {t('keys.expires')}: {k.expires_at ? formatDate(k.expires_at) : t('keys.never')}
          </span>
          <span>
            {t('keys.lastUsed')}: {formatTime(k.last_used_at)}
          </span>
          {limitLines(k)}
        </Space>
      ),
    },
    { title: t('common.actions'), key: 'actions', width: 96, render: (_v, k) => actions(k) },
  ];

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Space style={{ justifyContent: 'space-between', width: '100%' }} wrap>
        <PageTitle>{t('nav.keys')}</PageTitle>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
          {t('keys.create')}
        </Button>
      </Space>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('keys.intro')}
      </Typography.Paragraph>
      {tokens.error ? <ErrorAlert error={tokens.error} onRetry={() => void tokens.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<Token>
          rowKey="id"
          loading={tokens.isPending}
          dataSource={tokens.data ?? []}
          pagination={false}
          scroll={compact ? undefined : { x: 900 }}
          locale={{ emptyText: t('keys.empty') }}
          columns={compact ? compactColumns : wideColumns}
        />
      </Card>

      <Modal
        title={t('keys.create')}
        open={creating}
        onCancel={() => setCreating(false)}
        footer={null}
        destroyOnHidden
      >
        <CreateKeyForm
          onSubmit={(v) => create.mutate({ body: toCreateBody(v) })}
          pending={create.isPending}
          error={create.error}
        />
      </Modal>
      <Modal
        title={t('keys.createdTitle', { name: created?.name ?? '' })}
        open={created !== null}
        onCancel={() => setCreated(null)}
        onOk={() => setCreated(null)}
        okText={t('keys.copiedDone')}
        cancelButtonProps={{ style: { display: 'none' } }}
        mask={{ closable: false }}
      >
        {created ? <SecretReveal value={created.key} label={t('keys.newKey')} /> : null}
      </Modal>
      <RenameKeyModal
        token={renaming}
        pending={patch.isPending}
        onClose={() => setRenaming(null)}
        onRename={(name) => renaming && patch.mutate({ id: renaming.id, body: { name } })}
      />
    </Space>
  );
}
