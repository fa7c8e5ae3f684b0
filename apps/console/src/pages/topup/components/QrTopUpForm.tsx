import { Alert, Button, Form, InputNumber, Radio } from 'antd';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatUsd } from '../../../lib/format';
import { type TopUpOptions, topUpPreview } from '../../../lib/topup';

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
}: {
  options: TopUpOptions;
  onSubmit: (v: QrTopUpValues) => void;
  pending: boolean;
  error: unknown;
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
          min: o.min_amount_cny,
          threshold: o.bonus_threshold_cny,
          percent: o.bonus_percent,
        })}
        rules={[
          { required: true, message: t('topup.amountRequired') },
          { type: 'number', min: o.min_amount_cny, message: t('topup.belowMin', { min: o.min_amount_cny }) },
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
          title={t('topup.preview', { credit: formatUsd(preview.creditUsd), rate: o.cny_per_usd })}
          description={
            preview.bonus
              ? t('topup.previewBonus', {
                  bonus: formatUsd(preview.bonusUsd),
                  total: formatUsd(preview.totalUsd),
                })
              : t('topup.bonusHint', { threshold: o.bonus_threshold_cny, percent: o.bonus_percent })
          }
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
        {t('topup.pay')}
      </Button>
    </Form>
  );
}
