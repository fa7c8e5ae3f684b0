import { Card, Descriptions, Typography } from 'antd';
import { useT } from '../../../i18n/i18n';
import type { TopUpOptions } from '../../../lib/topup';

/** The configured contact as a link: mailto for an e-mail address, the page for a URL. */
function ContactLink({ contact }: { contact: string }) {
  const href = contact.includes('@') && !/^https?:/i.test(contact) ? `mailto:${contact}` : contact;
  return (
    <Typography.Link href={href} target={href.startsWith('mailto:') ? undefined : '_blank'} rel="noreferrer">
      {contact}
    </Typography.Link>
  );
}

/**
 * Bank transfers: what the operator published of its bank account and the customer's reference;
 * without the account, how to ask us for it (the payments contact); without either, that transfers
 * are not offered (no reference to put in a memo nobody can send).
 */
export function BankTransferCard({ bank }: { bank: TopUpOptions['bank_transfer'] }) {
  const t = useT();
  if (!bank.account_number && !bank.contact) {
    return (
      <Card title={t('topup.bank')}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          {t('topup.bankNone')}
        </Typography.Paragraph>
      </Card>
    );
  }
  return (
    <Card title={t('topup.bank')}>
      <Typography.Paragraph type="secondary">
        {bank.account_number ? (
          t('topup.bankIntro')
        ) : (
          <>
            {t('topup.bankAskContact')} <ContactLink contact={bank.contact!} />
          </>
        )}
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
        {bank.account_number && bank.contact ? (
          <Descriptions.Item label={t('topup.contact')}>
            <ContactLink contact={bank.contact} />
          </Descriptions.Item>
        ) : null}
      </Descriptions>
    </Card>
  );
}
