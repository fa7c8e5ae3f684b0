import { Button, Form, InputNumber } from 'antd';
import { ErrorAlert } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';

export interface LimitsValues {
  rpm_limit?: number | null;
  max_active_video_tasks?: number | null;
}

/** The account's own limits; empty for the service default. */
export function LimitsForm({
  initial,
  onSubmit,
  pending,
  error,
}: {
  initial: LimitsValues;
  onSubmit: (v: LimitsValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  // the API's range; an InputNumber's own bounds would change the number typed without a word
  const limitRule = { type: 'integer' as const, min: 1, max: 1_000_000, message: t('admin.limitRange') };
  return (
    <Form name="limits" layout="vertical" initialValues={initial} onFinish={onSubmit}>
      <Form.Item label={t('admin.rpm')} name="rpm_limit" extra={t('admin.emptyDefault')} rules={[limitRule]}>
        <InputNumber precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item
        label={t('admin.maxVideos')}
        name="max_active_video_tasks"
        extra={t('admin.emptyDefault')}
        rules={[limitRule]}
      >
        <InputNumber precision={0} style={{ width: '100%' }} />
      </Form.Item>
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button htmlType="submit" loading={pending}>
        {t('common.save')}
      </Button>
    </Form>
  );
}
