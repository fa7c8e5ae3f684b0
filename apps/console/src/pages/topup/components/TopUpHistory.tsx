import { Space, type TableColumnsType, Tag, Typography } from 'antd';
import { $api } from '../../../api/client';
import { ScreenReaderOnly, useCompactRows } from '../../../components/CompactRows';
import { ListCard } from '../../../components/ListCard';
import { useT } from '../../../i18n/i18n';
import { formatCny, formatTime, formatUsd } from '../../../lib/format';
import type { TopUp } from '../../../lib/topup';
import { OpenOrderActions } from './OpenOrderActions';
import { STATUS_COLOR } from './PaymentPanel';

/**
 * The account's recent top-ups: when, whether credited, how much, through whom. An order left
 * waiting says what can be done with it (show it again, cancel it) on its row, except the one on
 * show above (`shown`, marked). A phone gets the order in one cell beside what it credits.
 */
export function TopUpHistory({ shown, onShow }: { shown: string | null; onShow: (id: string) => void }) {
  const t = useT();
  const compact = useCompactRows();
  const history = $api.useQuery('get', '/console/api/topups');
  const status = (r: TopUp) => (
    <Space size={4} wrap>
      <Tag color={STATUS_COLOR[r.status]}>{t(`topup.status.${r.status}`)}</Tag>
      {r.status === 'created' && r.id !== shown ? <OpenOrderActions order={r} onShow={onShow} /> : null}
    </Space>
  );
  const credit = (r: TopUp) => formatUsd(r.credit_usd + r.bonus_usd);
  const wide: TableColumnsType<TopUp> = [
    { title: t('billing.time'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
    { title: t('videos.status'), dataIndex: 'status', render: (_s, r) => status(r) },
    { title: t('topup.credit'), key: 'credit', render: (_v, r) => credit(r) },
    { title: t('topup.amount'), dataIndex: 'amount_cny', render: (v: number) => formatCny(v) },
    {
      title: t('topup.provider'),
      dataIndex: 'provider',
      render: (p: TopUp['provider']) => t(`topup.provider.${p}`),
    },
  ];
  const narrow: TableColumnsType<TopUp> = [
    {
      title: t('videos.status'),
      key: 'order',
      render: (_v, r) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          {status(r)}
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
      width: 104,
      render: (_v, r) => (
        <Space orientation="vertical" size={0} align="end">
          <span>{credit(r)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('topup.amount')}: </ScreenReaderOnly>
            {formatCny(r.amount_cny)}
          </Typography.Text>
        </Space>
      ),
    },
  ];
  return (
    <ListCard<TopUp>
      title={t('topup.history')}
      query={history}
      rows={history.data?.data}
      scrollX={compact ? undefined : 640}
      highlight={shown}
      empty={t('topup.noHistory')}
      columns={compact ? narrow : wide}
    />
  );
}
