import { useQueryClient } from '@tanstack/react-query';
import { Card, Col, Row, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { $api, keyOf } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ListCard } from '../../components/ListCard';
import { useT } from '../../i18n/i18n';
import { formatTime, formatUsd } from '../../lib/format';
import type { TopUp } from '../../lib/topup';
import { BankTransferCard } from './components/BankTransferCard';
import { PaymentPanel, STATUS_COLOR } from './components/PaymentPanel';
import { QrTopUpForm } from './components/QrTopUpForm';

/** Top-ups: a QR payment (Alipay, WeChat Pay) or a bank transfer, and the account's past orders. */
export function TopUpPage() {
  const t = useT();
  const client = useQueryClient();
  const [orderId, setOrderId] = useState<string | null>(null);
  const options = $api.useQuery('get', '/console/api/topups/options');
  const history = $api.useQuery('get', '/console/api/topups', undefined, { enabled: options.isSuccess });
  const create = $api.useMutation('post', '/console/api/topups', {
    onSuccess: (o) => {
      setOrderId(o.id);
      client.setQueryData(
        $api.queryOptions('get', '/console/api/topups/{id}', { params: { path: { id: o.id } } }).queryKey,
        o,
      );
      void client.invalidateQueries({ queryKey: keyOf('/console/api/topups') });
    },
  });
  const o = options.data;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.topup')}
      </Typography.Title>
      {options.error ? (
        <ErrorAlert
          error={options.error}
          title={t('topup.unavailable')}
          onRetry={() => void options.refetch()}
        />
      ) : null}
      {options.isPending ? <Card loading /> : null}
      {o ? (
        <Row gutter={[16, 16]}>
          <Col xs={24} lg={14}>
            <Card title={t('topup.qrPayment')}>
              {orderId ? (
                <PaymentPanel
                  id={orderId}
                  onDone={() => {
                    setOrderId(null);
                    create.reset();
                  }}
                />
              ) : (
                <QrTopUpForm
                  options={o}
                  onSubmit={(body) => create.mutate({ body })}
                  pending={create.isPending}
                  error={create.error}
                />
              )}
            </Card>
          </Col>
          <Col xs={24} lg={10}>
            <BankTransferCard bank={o.bank_transfer} />
          </Col>
        </Row>
      ) : null}
      {o ? (
        <ListCard<TopUp>
          title={t('topup.history')}
          query={history}
          rows={history.data?.data}
          scrollX={640}
          empty={t('topup.noHistory')}
          columns={[
            // what a phone shows first: when, whether it was credited, and how much
            { title: t('billing.time'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
            {
              title: t('videos.status'),
              dataIndex: 'status',
              render: (s: TopUp['status']) => <Tag color={STATUS_COLOR[s]}>{t(`topup.status.${s}`)}</Tag>,
            },
            { title: t('topup.credit'), render: (_v, r) => formatUsd(r.credit_usd + r.bonus_usd) },
            { title: t('topup.amount'), dataIndex: 'amount_cny', render: (v: number) => `¥${v}` },
            {
              title: t('topup.provider'),
              dataIndex: 'provider',
              render: (p: TopUp['provider']) => t(`topup.provider.${p}`),
            },
          ]}
        />
      ) : null}
    </Space>
  );
}
