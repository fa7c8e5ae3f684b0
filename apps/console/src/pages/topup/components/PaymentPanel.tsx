import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, QRCode, Result, Space, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { $api, ApiError, keyOf } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatCny, formatTime, formatUsd, usdToMicro } from '../../../lib/format';
import { type TopUp, type TopUpOptions, topUpFinished } from '../../../lib/topup';
import { bonusText } from './BonusLine';

export const STATUS_COLOR: Record<TopUp['status'], string> = {
  created: 'processing',
  paid: 'processing',
  credited: 'success',
  closed: 'default',
  expired: 'default',
  cancelled: 'default',
};

/**
 * One order until it is credited, closed or expired (asked again every 2 s until then): its QR code,
 * or for an order paid on this phone (channel mobile) its state and a way back to the pay page. Cancel
 * closes it at the provider (POST .../cancel); while the payer is paying, the cancel is refused and
 * the order stays on screen.
 */
export function PaymentPanel({
  id,
  options,
  onDone,
}: {
  id: string;
  options: TopUpOptions;
  onDone: () => void;
}) {
  const t = useT();
  const client = useQueryClient();
  const order = $api.useQuery(
    'get',
    '/console/api/topups/{id}',
    { params: { path: { id } } },
    { refetchInterval: (q) => (q.state.data && topUpFinished(q.state.data.status) ? false : 2_000) },
  );
  const cancel = $api.useMutation('post', '/console/api/topups/{id}/cancel', {
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keyOf('/console/api/topups') });
      onDone();
    },
    onError: () => void order.refetch(),
  });
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
  const credit = usdToMicro(o.credit_usd);
  const bonus = bonusText(t, options, usdToMicro(o.bonus_usd), credit + usdToMicro(o.bonus_usd));
  if (o.status === 'credited') {
    return (
      <Result
        status="success"
        title={t('topup.credited')}
        subTitle={
          <>
            <div data-testid="topup-credited">
              {t('topup.creditedAmount', { amount: formatUsd(o.credit_usd + o.bonus_usd) })}
            </div>
            <div>
              {o.bonus_usd
                ? t('topup.creditedBonus', { percent: options.bonus_percent, bonus: formatUsd(o.bonus_usd) })
                : bonus}
            </div>
          </>
        }
        extra={<Button onClick={onDone}>{t('topup.another')}</Button>}
      />
    );
  }
  if (o.status === 'closed' || o.status === 'expired' || o.status === 'cancelled') {
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
      {o.channel === 'mobile' ? (
        // paid on this phone, in the provider's page: this page follows the order until it is credited
        <>
          <Typography.Text strong>{t(`topup.mobileWaiting.${o.provider}`)}</Typography.Text>
          {o.pay_url ? (
            <Button type="primary" href={o.pay_url}>
              {t('topup.openPayPage')}
            </Button>
          ) : null}
        </>
      ) : (
        <>
          <Typography.Text strong>{t(`topup.scanWith.${o.provider}`)}</Typography.Text>
          {o.qr_code ? (
            <QRCode value={o.qr_code} size={220} aria-label={t('topup.qr')} data-testid="topup-qr" />
          ) : (
            <Alert type="warning" showIcon title={t('topup.noQr')} />
          )}
        </>
      )}
      <Typography.Text>
        {t('topup.orderCredit', { amount: formatCny(o.amount_cny), credit: formatUsd(o.credit_usd) })}
      </Typography.Text>
      {bonus ? <Typography.Text type="secondary">{bonus}</Typography.Text> : null}
      <Tag color={STATUS_COLOR[o.status]} role="status">
        {t(`topup.status.${o.status}`)}
      </Tag>
      {o.expires_at ? (
        <Typography.Text type="secondary">
          {t('topup.expiresAt', { time: formatTime(o.expires_at) })}
        </Typography.Text>
      ) : null}
      <Typography.Text type="secondary">{t('topup.waiting')}</Typography.Text>
      {cancel.error instanceof ApiError && cancel.error.status === 409 ? (
        <Alert type="warning" showIcon role="alert" title={t('topup.cancelRefused')} />
      ) : cancel.error ? (
        <ErrorAlert error={cancel.error} />
      ) : null}
      <Button loading={cancel.isPending} onClick={() => cancel.mutate({ params: { path: { id } } })}>
        {t('topup.cancel')}
      </Button>
    </Space>
  );
}
