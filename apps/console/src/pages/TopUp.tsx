import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Col,
  Descriptions,
  Form,
  InputNumber,
  QRCode,
  Radio,
  Result,
  Row,
  Space,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { request } from '../api/client';
import { ErrorAlert } from '../components/ErrorAlert';
import { ListCard } from '../components/ListCard';
import { useT } from '../i18n/i18n';
import { formatTime, formatUsd } from '../lib/format';
import { type TopUp, type TopUpOptions, topUpFinished, topUpPreview } from '../lib/topup';

// The top-up routes: GET /console/api/topups/options, POST /console/api/topups, GET /console/api/topups/{id}, GET /console/api/topups
const STATUS_COLOR: Record<TopUp['status'], string> = {
  created: 'processing',
  paid: 'processing',
  credited: 'success',
  closed: 'default',
  expired: 'default',
};

function PaymentPanel({ id, onDone }: { id: string; onDone: () => void }) {
  const t = useT();
  const client = useQueryClient();
  const order = useQuery({
    queryKey: ['topup', id],
    queryFn: () => request<TopUp>('GET', `/console/api/topups/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data && topUpFinished(q.state.data.status) ? false : 2_000),
  });
  const status = order.data?.status;
  useEffect(() => {
    if (status === 'credited') {
      void client.invalidateQueries({ queryKey: ['balance'] });
      void client.invalidateQueries({ queryKey: ['me'] });
      void client.invalidateQueries({ queryKey: ['topups'] });
      void client.invalidateQueries({ queryKey: ['ledger'] });
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
      <Typography.Text strong>{t(`topup.scanWith.${o.provider}` as 'topup.scanWith.alipay')}</Typography.Text>
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

export function TopUpPage() {
  const t = useT();
  const client = useQueryClient();
  const [form] = Form.useForm<{ amount_cny: number; provider: string }>();
  const amount = Form.useWatch('amount_cny', form);
  const [orderId, setOrderId] = useState<string | null>(null);
  const options = useQuery({
    queryKey: ['topup-options'],
    queryFn: () => request<TopUpOptions>('GET', '/console/api/topups/options'),
  });
  const history = useQuery({
    queryKey: ['topups'],
    queryFn: () => request<{ data: TopUp[] }>('GET', '/console/api/topups'),
    enabled: options.isSuccess,
  });
  const create = useMutation({
    mutationFn: (v: { amount_cny: number; provider: string }) =>
      request<TopUp>('POST', '/console/api/topups', v),
    onSuccess: (o) => {
      setOrderId(o.id);
      client.setQueryData(['topup', o.id], o);
      void client.invalidateQueries({ queryKey: ['topups'] });
    },
  });
  const o = options.data;
  const preview = o ? topUpPreview(amount, o) : null;

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
                <Form
                  form={form}
                  layout="vertical"
                  requiredMark={false}
                  initialValues={{ provider: o.providers[0], amount_cny: o.min_amount_cny }}
                  onFinish={(v) => create.mutate(v)}
                >
                  <Form.Item
                    label={t('topup.amount')}
                    name="amount_cny"
                    extra={t('topup.minAndBonus', {
                      min: o.min_amount_cny,
                      threshold: o.bonus_threshold_cny,
                      percent: o.bonus_percent,
                    })}
                    rules={[
                      { required: true, message: t('topup.amountRequired') },
                      {
                        type: 'number',
                        min: o.min_amount_cny,
                        message: t('topup.belowMin', { min: o.min_amount_cny }),
                      },
                    ]}
                  >
                    <InputNumber prefix="¥" min={0} precision={2} step={10} style={{ width: '100%' }} />
                  </Form.Item>
                  {/* below the least amount, the field's own message says so */}
                  {preview && !preview.belowMin ? (
                    <Alert
                      type="info"
                      showIcon
                      role="status"
                      style={{ marginBottom: 16 }}
                      title={t('topup.preview', {
                        credit: formatUsd(preview.creditUsd),
                        rate: o.cny_per_usd,
                      })}
                      description={
                        preview.bonus
                          ? t('topup.previewBonus', {
                              bonus: formatUsd(preview.bonusUsd),
                              total: formatUsd(preview.totalUsd),
                            })
                          : t('topup.bonusHint', {
                              threshold: o.bonus_threshold_cny,
                              percent: o.bonus_percent,
                            })
                      }
                    />
                  ) : null}
                  <Form.Item label={t('topup.provider')} name="provider" rules={[{ required: true }]}>
                    <Radio.Group
                      optionType="button"
                      buttonStyle="solid"
                      options={o.providers.map((p) => ({
                        value: p,
                        label: t(`topup.provider.${p}` as 'topup.provider.alipay'),
                      }))}
                    />
                  </Form.Item>
                  {create.error ? <ErrorAlert error={create.error} style={{ marginBottom: 16 }} /> : null}
                  <Button
                    type="primary"
                    htmlType="submit"
                    loading={create.isPending}
                    disabled={preview?.belowMin}
                  >
                    {t('topup.pay')}
                  </Button>
                </Form>
              )}
            </Card>
          </Col>
          <Col xs={24} lg={10}>
            <Card title={t('topup.bank')}>
              <Typography.Paragraph type="secondary">
                {o.bank_transfer.account_number ? t('topup.bankIntro') : t('topup.bankAsk')}
              </Typography.Paragraph>
              {/* what the operator published of its account, and always the customer's reference */}
              <Descriptions column={1} size="small" bordered>
                {o.bank_transfer.beneficiary ? (
                  <Descriptions.Item label={t('topup.beneficiary')}>
                    {o.bank_transfer.beneficiary}
                  </Descriptions.Item>
                ) : null}
                {o.bank_transfer.bank ? (
                  <Descriptions.Item label={t('topup.bankName')}>{o.bank_transfer.bank}</Descriptions.Item>
                ) : null}
                {o.bank_transfer.account_number ? (
                  <Descriptions.Item label={t('topup.accountNumber')}>
                    <Typography.Text copyable>{o.bank_transfer.account_number}</Typography.Text>
                  </Descriptions.Item>
                ) : null}
                <Descriptions.Item label={t('topup.reference')}>
                  <Typography.Text copyable strong>
                    {o.bank_transfer.reference}
                  </Typography.Text>
                </Descriptions.Item>
              </Descriptions>
            </Card>
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
              render: (p: string) => (p === 'alipay' || p === 'wechat' ? t(`topup.provider.${p}`) : p),
            },
          ]}
        />
      ) : null}
    </Space>
  );
}
