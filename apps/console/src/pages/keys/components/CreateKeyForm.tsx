import { Button, DatePicker, Form, Input, InputNumber, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import { $api } from '../../../api/client';
import { ErrorAlert, useErrorText } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { isIpRule } from '../../../lib/ip';

export interface CreateKeyValues {
  name: string;
  quota_usd?: number | null;
  expires?: Dayjs | null;
  allowed_models?: string[];
  allowed_ips?: string[];
}

/** The POST /console/api/tokens body of the form's values: empty limits are left out. */
export function toCreateBody(v: CreateKeyValues) {
  return {
    name: v.name.trim(),
    ...(v.quota_usd !== null && v.quota_usd !== undefined ? { quota_usd: v.quota_usd } : {}),
    ...(v.expires ? { expires_at: v.expires.endOf('day').unix() } : {}),
    ...(v.allowed_models?.length ? { allowed_models: v.allowed_models } : {}),
    ...(v.allowed_ips?.length ? { allowed_ips: v.allowed_ips.map((ip) => ip.trim()).filter(Boolean) } : {}),
  };
}

export function CreateKeyForm({
  onSubmit,
  pending,
  error,
}: {
  onSubmit: (v: CreateKeyValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const errorText = useErrorText();
  const models = $api.useQuery('get', '/console/api/models', undefined, {
    select: (r) => r.data,
    staleTime: 600_000,
  });
  return (
    <Form<CreateKeyValues> layout="vertical" onFinish={onSubmit} requiredMark="optional">
      <Form.Item label={t('keys.name')} name="name" rules={[{ required: true, whitespace: true, max: 64 }]}>
        <Input maxLength={64} autoFocus />
      </Form.Item>
      <Form.Item label={t('keys.quotaUsd')} name="quota_usd" extra={t('keys.quotaHint')}>
        <InputNumber min={0} step={1} precision={2} style={{ width: '100%' }} prefix="$" />
      </Form.Item>
      <Form.Item label={t('keys.expires')} name="expires" extra={t('keys.expiresHint')}>
        <DatePicker style={{ width: '100%' }} disabledDate={(d) => d.isBefore(dayjs(), 'day')} />
      </Form.Item>
      <Form.Item label={t('keys.models')} name="allowed_models" extra={t('keys.modelsHint')}>
        <Select
          mode="multiple"
          allowClear
          loading={models.isPending}
          options={(models.data ?? []).map((m) => ({ value: m.id, label: `${m.id} (${m.type})` }))}
          notFoundContent={models.error ? errorText(models.error) : undefined}
        />
      </Form.Item>
      <Form.Item
        label={t('keys.ips')}
        name="allowed_ips"
        extra={t('keys.ipsHint')}
        rules={[
          {
            validator: async (_r, value: string[] | undefined) => {
              const bad = (value ?? []).find((ip) => ip.trim() && !isIpRule(ip));
              if (bad !== undefined) throw new Error(t('keys.ipInvalid', { value: bad.trim() }));
            },
          },
        ]}
      >
        <Select mode="tags" tokenSeparators={[',', ' ']} open={false} suffixIcon={null} />
      </Form.Item>
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button type="primary" htmlType="submit" loading={pending} block>
        {t('keys.create')}
      </Button>
    </Form>
  );
}
