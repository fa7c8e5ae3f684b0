import { App, Button, Form, type FormInstance, Input, InputNumber } from 'antd';
import { ErrorAlert } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';
import { formatUsdExact } from '../../../../lib/format';
import { looksLikeTransferReference, transferReference } from '../../../../lib/reference';

export interface TopupValues {
  amount_usd: number;
  /** the bank's id of the transfer: each is credited once */
  reference: string;
  /** the reference the memo carried (MG...), checked by the API to be this account's */
  transfer_reference?: string;
  note?: string;
}

/**
 * A bank transfer received, credited after a confirmation that names the amount and the account.
 * The form has its own name, so its fields' ids (and the labels pointing at them) are unique on a
 * page that has other forms with an amount and a reference.
 */
export function BankTopUpForm({
  form,
  email,
  memoReference,
  onSubmit,
  pending,
  error,
}: {
  form: FormInstance<TopupValues>;
  email: string;
  memoReference: string | undefined;
  onSubmit: (v: TopupValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const { modal } = App.useApp();
  return (
    <Form<TopupValues>
      form={form}
      name="bank-topup"
      layout="vertical"
      initialValues={{ transfer_reference: memoReference }}
      onFinish={(v) =>
        modal.confirm({
          title: t('admin.creditConfirm', { amount: formatUsdExact(v.amount_usd), email }),
          content: t('admin.creditConfirmHint', { reference: v.reference.trim() }),
          okText: t('admin.credit'),
          cancelText: t('common.cancel'),
          onOk: () => onSubmit(v),
        })
      }
      requiredMark={false}
    >
      <Form.Item label={t('admin.amountUsd')} name="amount_usd" rules={[{ required: true }]}>
        <InputNumber min={0.01} precision={2} prefix="$" style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item
        label={t('admin.transferReference')}
        name="reference"
        extra={t('admin.transferReferenceHint')}
        rules={[
          { required: true, whitespace: true },
          {
            // the memo's reference is the same for every transfer of the account: as the
            // once-only id it would swallow the next transfer of the same amount
            validator: async (_r, v: string | undefined) => {
              if (v && looksLikeTransferReference(v)) throw new Error(t('admin.bankIdNotMemo'));
            },
          },
        ]}
      >
        <Input maxLength={128} />
      </Form.Item>
      <Form.Item
        label={t('admin.memoReference')}
        name="transfer_reference"
        extra={t('admin.memoReferenceHint')}
        rules={[
          {
            validator: async (_r, v: string | undefined) => {
              if (v?.trim() && !transferReference(v)) throw new Error(t('admin.referenceShape'));
            },
          },
        ]}
      >
        <Input maxLength={64} />
      </Form.Item>
      <Form.Item label={t('admin.note')} name="note">
        <Input maxLength={500} />
      </Form.Item>
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button type="primary" htmlType="submit" loading={pending}>
        {t('admin.credit')}
      </Button>
    </Form>
  );
}
