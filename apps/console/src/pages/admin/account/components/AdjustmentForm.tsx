import { App, Button, Form, type FormInstance, Input, InputNumber } from 'antd';
import { ErrorAlert } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';
import { formatUsd } from '../../../../lib/format';

export interface AdjustValues {
  amount_usd: number;
  reason: string;
  reference?: string;
}

/** A signed correction of the balance with the reason its owner reads in the ledger (confirmed). */
export function AdjustmentForm({
  form,
  email,
  onSubmit,
  pending,
  error,
}: {
  form: FormInstance<AdjustValues>;
  email: string;
  onSubmit: (v: AdjustValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const { modal } = App.useApp();
  return (
    <Form<AdjustValues>
      form={form}
      name="adjustment"
      layout="vertical"
      onFinish={(v) =>
        modal.confirm({
          title: t(v.amount_usd < 0 ? 'admin.takeConfirm' : 'admin.giveConfirm', {
            amount: formatUsd(Math.abs(v.amount_usd)),
            email,
          }),
          content: t('admin.adjustConfirmHint', { reason: v.reason.trim() }),
          okText: t('admin.apply'),
          cancelText: t('common.cancel'),
          onOk: () => onSubmit(v),
        })
      }
      requiredMark={false}
    >
      <Form.Item label={t('admin.amountSigned')} name="amount_usd" rules={[{ required: true }]}>
        <InputNumber precision={6} prefix="$" style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item label={t('billing.reason')} name="reason" rules={[{ required: true, whitespace: true }]}>
        <Input maxLength={500} />
      </Form.Item>
      <Form.Item label={t('billing.reference')} name="reference">
        <Input maxLength={128} />
      </Form.Item>
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button htmlType="submit" loading={pending}>
        {t('admin.apply')}
      </Button>
    </Form>
  );
}
