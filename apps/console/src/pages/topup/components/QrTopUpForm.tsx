import { Alert, Button, Form, InputNumber, Radio } from 'antd';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatCny, formatMicroUsd } from '../../../lib/format';
import { type TopUpOptions, topUpPreview } from '../../../lib/topup';
import { bonusText } from './BonusLine';

export interface QrTopUpValues {
  amount_cny: number;
  provider: TopUpOptions['providers'][number];
}

/** The amount and the payment app of a QR top-up, with what it credits before paying. */
export function QrTopUpForm({
  options: o,
  onSubmit,
  pending,
  error,
  onPhone = false,
}: {
  options: TopUpOptions;
  onSubmit: (v: QrTopUpValues) => void;
  pending: boolean;
  error: unknown;
  /** paid on this phone: the button leads to the provider's pay page instead of a QR code */
  onPhone?: boolean;
}) {
  const t = useT();
  const [form] = Form.useForm<QrTopUpValues>();
  const amount = Form.useWatch('amount_cny', form);
  const preview = topUpPreview(amount, o);
  return (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={{ provider: o.providers[0], amount_cny: o.min_amount_cny }}
      onFinish={onSubmit}
    >
      <Form.Item
        label={t('topup.amount')}
        name="amount_cny"
        extra={t('topup.minAndBonus', {
          min: formatCny(o.min_amount_cny),
          threshold: formatCny(o.bonus_threshold_cny),
          percent: o.bonus_percent,
        })}
        rules={[
          { required: true, message: t('topup.amountRequired') },
          {
            type: 'number',
            min: o.min_amount_cny,
            message: t('topup.belowMin', { min: formatCny(o.min_amount_cny) }),
          },
        ]}
      >
        <InputNumber prefix="¥" min={0} precision={2} step={10} style={{ width: '100%' }} />
      </Form.Item>
      {/* below the least amount, the field's own message says so */}
      {!preview.belowMin ? (
        <Alert
          type="info"
          showIcon
          role="status"
          style={{ marginBottom: 16 }}
          title={t('topup.preview', { credit: formatMicroUsd(preview.creditMicroUsd), rate: o.cny_per_usd })}
          description={bonusText(t, o, preview.bonusMicroUsd, preview.totalMicroUsd)}
        />
      ) : null}
      <Form.Item label={t('topup.provider')} name="provider" rules={[{ required: true }]}>
        <Radio.Group
          optionType="button"
          buttonStyle="solid"
          options={o.providers.map((p) => ({ value: p, label: t(`topup.provider.${p}`) }))}
        />
      </Form.Item>
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button type="primary" htmlType="submit" loading={pending} disabled={preview.belowMin}>
        {t(onPhone ? 'topup.payOnPhone' : 'topup.pay')}
      </Button>
    </Form>
  );
}
