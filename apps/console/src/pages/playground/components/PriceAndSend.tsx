import { Alert, Button, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { $api } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatMicroUsd } from '../../../lib/format';

/**
 * The end of a playground form: the price before sending (with what is charged when), the call's
 * error, the send button naming the price, and the note on the playground key's limit. A balance
 * that does not cover the price says so before sending, with the way to the top-up page.
 */
export function PriceAndSend({
  priceMicro,
  hint,
  pending,
  error,
}: {
  /** the price of the call in micro-USD; null while no model is chosen */
  priceMicro: number | null;
  hint: ReactNode;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const balance = $api.useQuery('get', '/console/api/balance');
  const price = priceMicro === null ? null : formatMicroUsd(priceMicro);
  const left = balance.data?.balance_micro_usd;
  const short = priceMicro !== null && left !== undefined && left < priceMicro;
  return (
    <>
      {price !== null ? (
        <Alert
          type={short ? 'warning' : 'info'}
          showIcon
          role="status"
          style={{ marginBottom: 16 }}
          title={t('playground.price', { price })}
          description={
            short ? (
              <>
                {t('playground.short', { balance: formatMicroUsd(left) })}{' '}
                <Link to="/console/topup">{t('nav.topup')}</Link>
              </>
            ) : (
              hint
            )
          }
        />
      ) : null}
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button type="primary" htmlType="submit" loading={pending} disabled={price === null}>
        {price === null ? t('playground.send') : t('playground.sendFor', { price })}
      </Button>
      <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
        {t('playground.keyNote')}
      </Typography.Paragraph>
    </>
  );
}
