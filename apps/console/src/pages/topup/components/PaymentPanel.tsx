import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, QRCode, Result, Space, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { $api, keyOf } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatTime, formatUsd } from '../../../lib/format';
import { type TopUp, topUpFinished } from '../../../lib/topup';

export const STATUS_COLOR: Record<TopUp['status'], string> = {
  created: 'processing',
  paid: 'processing',
  credited: 'success',
  closed: 'default',
  expired: 'default',
};

/** One QR order until it is credited, closed or expired (asked again every 2 s until then). */
export function PaymentPanel({ id, onDone }: { id: string; onDone: () => void }) {
  const t = useT();
  const client = useQueryClient();
  const order = $api.useQuery(
    'get',
    '/console/api/topups/{id}',
    { params: { path: { id } } },
    { refetchInterval: (q) => (q.state.data && topUpFinished(q.state.data.status) ? false : 2_000) },
  );
  const status = order.data?.status;
  useEffect(() => {
    if (status === 'credited') {
      for (const path of [
        '/console/api/balance',
        '/console/api/me',
        '/console/api/topups',
        '/console/api/ledger',
      ] as const)
        void client.invalidateQueries({ queryKey: keyOf(path) });
    }
  }, [status, client]);
  if (order.error) return <ErrorAlert error={order.error} onRetry={() => void order.refetch()} />;
  const o = order.data;
  if (!o) return <Card loading />;
  if (o.status === 'credited') {
    return (
      <Result
        status="success"
        title={t('topup.credited')}
        subTitle={t('topup.creditedAmount', { amount: formatUsd(o.credit_usd + o.bonus_usd) })}
        extra={<Button onClick={onDone}>{t('topup.another')}</Button>}
      />
    );
  }
  if (o.status === 'closed' || o.status === 'expired') {
    return (
      <Result
        status="warning"
        title={t(`topup.status.${o.status}`)}
        extra={<Button onClick={onDone}>{t('topup.another')}</Button>}
      />
    );
  }
  return (
    <Space orientation="vertical" align="center" style={{ width: '100%' }}>
      <Typography.Text strong>{t(`topup.scanWith.${o.provider}`)}</Typography.Text>
      {o.qr_code ? (
        <QRCode value={o.qr_code} size={220} aria-label={t('topup.qr')} data-testid="topup-qr" />
      ) : (
        <Alert type="warning" showIcon title={t('topup.noQr')} />
      )}
      <Typography.Text>
        ¥{o.amount_cny} → {formatUsd(o.credit_usd)}
        {o.bonus_usd ? ` + ${formatUsd(o.bonus_usd)} ${t('topup.bonus')}` : ''}
      </Typography.Text>
      <Tag color={STATUS_COLOR[o.status]} role="status">
        {t(`topup.status.${o.status}`)}
      </Tag>
      {o.expires_at ? (
        <Typography.Text type="secondary">
          {t('topup.expiresAt', { time: formatTime(o.expires_at) })}
        </Typography.Text>
      ) : null}
      <Typography.Text type="secondary">{t('topup.waiting')}</Typography.Text>
      <Button onClick={onDone}>{t('common.cancel')}</Button>
    </Space>
  );
}
