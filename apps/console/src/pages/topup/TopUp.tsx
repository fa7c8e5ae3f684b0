import { useQueryClient } from '@tanstack/react-query';
import { Card, Col, Grid, Row, Space } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { $api, keyOf } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { BankTransferCard } from './components/BankTransferCard';
import { PaymentPanel } from './components/PaymentPanel';
import { QrTopUpForm } from './components/QrTopUpForm';
import { TopUpHistory } from './components/TopUpHistory';
import { PageTitle } from '../../components/PageTitle';

/**
 * Top-ups: a QR payment (Alipay, WeChat Pay) or a bank transfer, and the account's past orders. On a
 * phone (a viewport narrower than 768 px, the console's phone layout) there is no second device to
 * scan with: the order is made for the phone (channel mobile) and the provider's pay page opens;
 * it sends the payer back to `?order=<id>`, where the order is followed until it is credited.
 */
export function TopUpPage() {
  const t = useT();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  // a breakpoint below md matches (none does where there is no viewport to measure, as in jsdom)
  const screens = Grid.useBreakpoint();
  const onPhone = screens.md === false && (screens.xs === true || screens.sm === true);
  const [orderId, setOrderId] = useState<string | null>(() => params.get('order'));
  const showOrder = (id: string | null) => {
    setOrderId(id);
    setParams(id ? { order: id } : {}, { replace: true });
  };
  const options = $api.useQuery('get', '/console/api/topups/options');
  const create = $api.useMutation('post', '/console/api/topups', {
    onSuccess: (o) => {
      showOrder(o.id);
      client.setQueryData(
        $api.queryOptions('get', '/console/api/topups/{id}', { params: { path: { id: o.id } } }).queryKey,
        o,
      );
      void client.invalidateQueries({ queryKey: keyOf('/console/api/topups') });
      // a phone pays in the provider's page, which returns here with ?order=
      if (o.pay_url) window.location.assign(o.pay_url);
    },
  });
  const o = options.data;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.topup')}</PageTitle>
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
            <Card title={t(onPhone ? 'topup.mobilePayment' : 'topup.qrPayment')}>
              {orderId ? (
                <PaymentPanel
                  id={orderId}
                  options={o}
                  onDone={() => {
                    showOrder(null);
                    create.reset();
                  }}
                />
              ) : (
                <QrTopUpForm
                  options={o}
                  onSubmit={(body) =>
                    create.mutate({ body: onPhone ? { ...body, channel: 'mobile' } : body })
                  }
                  onPhone={onPhone}
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
        <TopUpHistory
          shown={orderId}
          onShow={(id) => {
            showOrder(id);
            window.scrollTo({ top: 0 });
          }}
        />
      ) : null}
    </Space>
  );
}
