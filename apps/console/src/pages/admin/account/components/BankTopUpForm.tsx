import { Alert, App, Button, Form, type FormInstance, Input, InputNumber } from 'antd';
import { $api } from '../../../../api/client';
import { ErrorAlert } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';
import { formatCny, formatMicroUsd } from '../../../../lib/format';
import { looksLikeTransferReference, transferReference } from '../../../../lib/reference';
import { type TopUpOptions, topUpPreview } from '../../../../lib/topup';

export interface TopupValues {
  /** what the bank received, in yuan (at most 2 decimals) */
  amount_cny: number;
  /** the bank's id of the transfer: each is credited once */
  reference: string;
  /** the reference the memo carried (MG...), checked by the API to be this account's */
  transfer_reference?: string;
  note?: string;
}

/** What `amountCny` credits, by the rule of QR top-ups (the API decides the real figures). */
function creditWords(
  t: ReturnType<typeof useT>,
  amountCny: number | null | undefined,
  o: TopUpOptions | undefined,
): string | null {
  if (!o || !amountCny || amountCny < o.min_amount_cny) return null;
  const p = topUpPreview(amountCny, o);
  return p.bonus
    ? t('admin.bankCreditBonus', {
        credit: formatMicroUsd(p.creditMicroUsd),
        percent: o.bonus_percent,
        bonus: formatMicroUsd(p.bonusMicroUsd),
        rate: o.cny_per_usd,
      })
    : t('admin.bankCredit', { credit: formatMicroUsd(p.creditMicroUsd), rate: o.cny_per_usd });
}

/**
 * A bank transfer received in CNY, credited in USD by the rule of QR top-ups (the rate, the minimum
 * and the bonus of the top-up options), after a confirmation that names the amount and the account.
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
  const options = $api.useQuery('get', '/console/api/topups/options');
  const amount = Form.useWatch('amount_cny', form);
  const preview = creditWords(t, amount, options.data);
  const min = options.data?.min_amount_cny;
  return (
    <Form<TopupValues>
      form={form}
      name="bank-topup"
      layout="vertical"
      initialValues={{ transfer_reference: memoReference }}
      onFinish={(v) =>
        modal.confirm({
          title: t('admin.creditConfirm', { amount: formatCny(v.amount_cny), email }),
          content: (
            <>
              {creditWords(t, v.amount_cny, options.data) ? (
                <p>{creditWords(t, v.amount_cny, options.data)}</p>
              ) : null}
              <p>{t('admin.creditConfirmHint', { reference: v.reference.trim() })}</p>
            </>
          ),
          okText: t('admin.credit'),
          cancelText: t('common.cancel'),
          onOk: () => onSubmit(v),
        })
      }
      requiredMark={false}
    >
      <Form.Item
        label={t('admin.amountCny')}
        name="amount_cny"
        rules={[
          { required: true, message: t('topup.amountRequired') },
          ...(min
            ? [{ type: 'number' as const, min, message: t('topup.belowMin', { min: formatCny(min) }) }]
            : []),
        ]}
      >
        <InputNumber min={0} precision={2} prefix="¥" style={{ width: '100%' }} />
      </Form.Item>
      {preview ? (
        <Alert type="info" showIcon role="status" style={{ marginBottom: 16 }} title={preview} />
      ) : null}
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
