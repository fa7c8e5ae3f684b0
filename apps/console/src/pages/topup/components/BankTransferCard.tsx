import { Card, Descriptions, Typography } from 'antd';
import { useT } from '../../../i18n/i18n';
import type { TopUpOptions } from '../../../lib/topup';

/** What the operator published of its bank account, and always the customer's reference. */
export function BankTransferCard({ bank }: { bank: TopUpOptions['bank_transfer'] }) {
  const t = useT();
  return (
    <Card title={t('topup.bank')}>
      <Typography.Paragraph type="secondary">
        {bank.account_number ? t('topup.bankIntro') : t('topup.bankAsk')}
      </Typography.Paragraph>
      <Descriptions column={1} size="small" bordered>
        {bank.beneficiary ? (
          <Descriptions.Item label={t('topup.beneficiary')}>{bank.beneficiary}</Descriptions.Item>
        ) : null}
        {bank.bank ? <Descriptions.Item label={t('topup.bankName')}>{bank.bank}</Descriptions.Item> : null}
        {bank.account_number ? (
          <Descriptions.Item label={t('topup.accountNumber')}>
            <Typography.Text copyable>{bank.account_number}</Typography.Text>
          </Descriptions.Item>
        ) : null}
        <Descriptions.Item label={t('topup.reference')}>
          <Typography.Text copyable strong>
            {bank.reference}
          </Typography.Text>
        </Descriptions.Item>
      </Descriptions>
    </Card>
  );
}
