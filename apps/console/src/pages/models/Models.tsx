import { Segmented, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { $api } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { formatUsd } from '../../lib/format';
import { PageTitle } from '../../components/PageTitle';

type Kind = 'all' | 'image' | 'video';

/** The catalog as a customer chooses from it: each model, what it does and what one call costs. */
export function ModelsPage() {
  const t = useT();
  const [kind, setKind] = useState<Kind>('all');
  const models = $api.useQuery('get', '/console/api/models', undefined, { select: (r) => r.data });
  const rows = models.data?.filter((m) => kind === 'all' || m.type === kind) ?? [];
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.models')}</PageTitle>
      <Typography.Paragraph style={{ margin: 0 }}>{t('models.intro')}</Typography.Paragraph>
      <Segmented<Kind>
        value={kind}
        onChange={setKind}
        options={[
          { value: 'all', label: t('models.all') },
          { value: 'image', label: t('models.images') },
          { value: 'video', label: t('models.videos') },
        ]}
      />
      {models.error ? <ErrorAlert error={models.error} onRetry={() => void models.refetch()} /> : null}
      <Table
        rowKey="id"
        size="small"
        loading={models.isPending}
        dataSource={rows}
        pagination={false}
        columns={[
          {
            title: t('models.id'),
            dataIndex: 'id',
            render: (id: string, m) => (
              <Space orientation="vertical" size={0}>
                <Typography.Text code copyable style={{ whiteSpace: 'nowrap' }}>
                  {id}
                </Typography.Text>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {t(m.type === 'image' ? 'models.type.image' : 'models.type.video')}
                  {m.duration_seconds
                    ? ` · ${t('models.video', { seconds: m.duration_seconds, resolution: m.resolution ?? '' })}`
                    : ''}
                  {m.needs_image && m.type === 'image' ? ` · ${t('models.needsImage')}` : ''}
                </Typography.Text>
              </Space>
            ),
          },
          {
            title: t('models.endpoint'),
            dataIndex: 'endpoints',
            responsive: ['md'],
            render: (endpoints: string[]) =>
              endpoints.map((e) => (
                <Tag key={e} style={{ fontFamily: 'monospace' }}>
                  {e}
                </Tag>
              )),
          },
          {
            title: t('models.price'),
            dataIndex: 'price_usd',
            align: 'right',
            render: (price: number, m) => (
              <Space orientation="vertical" size={0} data-testid={`price-${m.id}`}>
                <span>
                  {t(m.unit === 'image' ? 'models.perImage' : 'models.perTask', {
                    price: formatUsd(price),
                  })}
                </span>
                {m.silent_price_usd !== null ? (
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {t('models.perTaskSilent', { price: formatUsd(m.silent_price_usd) })}
                  </Typography.Text>
                ) : null}
              </Space>
            ),
          },
        ]}
      />
    </Space>
  );
}
