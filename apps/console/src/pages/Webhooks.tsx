import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Form,
  Input,
  Popconfirm,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { $api, api, keyOf, unwrap } from '../api/client';
import { ErrorAlert, useErrorText } from '../components/ErrorAlert';
import { WebhookEndpoints } from '../components/WebhookEndpoints';
import { useT } from '../i18n/i18n';
import { formatTime } from '../lib/format';
import { PageTitle } from '../components/PageTitle';

export function WebhooksPage() {
  const t = useT();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const client = useQueryClient();
  const [revealed, setRevealed] = useState(false);
  const secret = $api.useQuery('get', '/console/api/webhooks/secret', undefined, {
    // the secret stays in memory only while the page shows it
    gcTime: 0,
  });
  const settings = $api.useQuery('get', '/console/api/webhooks/settings');
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/console/api/webhooks/secret/rotate')),
    onSuccess: (data) => {
      client.setQueryData(keyOf('/console/api/webhooks/secret'), data);
      setRevealed(true);
      void message.success(t('webhooks.rotated'));
    },
  });
  const toggle = useMutation({
    mutationFn: (on: boolean) =>
      unwrap(api.POST('/console/api/webhooks/settings', { body: { video_processing: on } })),
    onSuccess: (data) => client.setQueryData(keyOf('/console/api/webhooks/settings'), data),
    onError: (err) => void message.error(errorText(err)),
  });
  const test = useMutation({
    mutationFn: (url: string) => unwrap(api.POST('/console/api/webhooks/test', { body: { url } })),
  });

  const s = secret.data;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.webhooks')}</PageTitle>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('webhooks.intro')}
      </Typography.Paragraph>
      <WebhookEndpoints />
      <Card title={t('webhooks.secret')}>
        {secret.error ? <ErrorAlert error={secret.error} onRetry={() => void secret.refetch()} /> : null}
        {secret.isPending ? <Card loading variant="borderless" /> : null}
        {s ? (
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Typography.Paragraph
              code
              copyable={
                revealed ? { text: s.secret, tooltips: [t('common.copy'), t('common.copied')] } : false
              }
              style={{ wordBreak: 'break-all', margin: 0 }}
              data-testid="webhook-secret"
            >
              {revealed ? s.secret : `whsec_${'•'.repeat(24)}`}
            </Typography.Paragraph>
            <Descriptions size="small" column={{ xs: 1, md: 3 }}>
              <Descriptions.Item label={t('webhooks.created')}>{formatTime(s.created_at)}</Descriptions.Item>
              <Descriptions.Item label={t('webhooks.rotatedAt')}>
                {formatTime(s.rotated_at)}
              </Descriptions.Item>
            </Descriptions>
            {s.previous_secret_expires_at ? (
              <Alert
                type="info"
                showIcon
                title={t('webhooks.overlap', { time: formatTime(s.previous_secret_expires_at) })}
              />
            ) : null}
            {rotate.error ? <ErrorAlert error={rotate.error} /> : null}
            <Space wrap>
              <Button onClick={() => setRevealed((r) => !r)} aria-pressed={revealed}>
                {revealed ? t('webhooks.hide') : t('webhooks.reveal')}
              </Button>
              <Popconfirm
                title={t('webhooks.rotateConfirm')}
                description={t('webhooks.rotateHint')}
                okText={t('webhooks.rotate')}
                cancelText={t('common.cancel')}
                onConfirm={() => rotate.mutateAsync()}
              >
                <Button danger loading={rotate.isPending}>
                  {t('webhooks.rotate')}
                </Button>
              </Popconfirm>
            </Space>
          </Space>
        ) : null}
      </Card>
      <Card title={t('webhooks.events')}>
        {settings.error ? (
          <ErrorAlert error={settings.error} onRetry={() => void settings.refetch()} />
        ) : null}
        <Space orientation="vertical">
          <Space wrap>
            {(settings.data?.events ?? []).map((e) => (
              <Tag key={e}>{e}</Tag>
            ))}
          </Space>
          <Space>
            <Switch
              id="processing-events"
              checked={settings.data?.video_processing ?? false}
              loading={settings.isPending || toggle.isPending}
              onChange={(on) => toggle.mutate(on)}
            />
            <label htmlFor="processing-events">{t('webhooks.processingOptIn')}</label>
          </Space>
        </Space>
      </Card>
      <Card title={t('webhooks.test')}>
        <Typography.Paragraph type="secondary">{t('webhooks.testIntro')}</Typography.Paragraph>
        <Form
          layout="vertical"
          onFinish={(v: { url: string }) => test.mutate(v.url.trim())}
          // a result belongs to the address it was sent to
          onValuesChange={() => test.reset()}
          requiredMark={false}
        >
          <Form.Item
            label={t('webhooks.testUrl')}
            name="url"
            // the form checks only the shape; which hosts may be reached is the API's to say
            rules={[
              { required: true, whitespace: true, message: t('webhooks.urlInvalid') },
              { validator: httpUrl(t('webhooks.urlInvalid')) },
            ]}
          >
            <Input placeholder="https://example.com/hooks/mediagate" inputMode="url" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={test.isPending}>
            {t('webhooks.sendTest')}
          </Button>
        </Form>
        {test.error ? <ErrorAlert error={test.error} style={{ marginTop: 16 }} /> : null}
        {test.data ? (
          <Alert
            role="status"
            style={{ marginTop: 16 }}
            type={test.data.delivered ? 'success' : 'warning'}
            showIcon
            title={test.data.delivered ? t('webhooks.testDelivered') : t('webhooks.testFailed')}
            description={
              <Descriptions size="small" column={1}>
                <Descriptions.Item label={t('videos.statusCode')}>
                  {test.data.status_code ?? '—'}
                </Descriptions.Item>
                <Descriptions.Item label={t('videos.latency')}>{test.data.latency_ms} ms</Descriptions.Item>
                {test.data.error ? (
                  <Descriptions.Item label={t('videos.error')}>{test.data.error}</Descriptions.Item>
                ) : null}
                {test.data.response_body ? (
                  <Descriptions.Item label={t('videos.response')}>
                    <Typography.Text code>{test.data.response_body.slice(0, 500)}</Typography.Text>
                  </Descriptions.Item>
                ) : null}
              </Descriptions>
            }
          />
        ) : null}
      </Card>
    </Space>
  );
}

/** A form rule: an absolute http(s) URL, any host (a name without dots, an IP address). */
const httpUrl = (message: string) => async (_rule: unknown, value: string | undefined) => {
  if (!value?.trim()) return;
  let url: URL | undefined;
  try {
    url = new URL(value.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    throw new Error(message);
};
