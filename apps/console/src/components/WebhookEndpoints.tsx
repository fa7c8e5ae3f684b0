import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Descriptions, Popconfirm, Space, Tag, Typography } from 'antd';
import { $api, api, keyOf, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useT } from '../i18n/i18n';
import { formatTime } from '../lib/format';
import { ErrorAlert, useErrorText } from './ErrorAlert';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];

/** One endpoint: its state, why it is disabled and since when, what waits for it, and the way to enable it. */
export function EndpointCard(props: {
  endpoint: WebhookEndpoint;
  /** enables it; absent: shown without the button */
  onEnable?: () => Promise<unknown>;
  enabling?: boolean;
}) {
  const t = useT();
  const e = props.endpoint;
  const disabled = e.status === 'disabled';
  return (
    <Card
      size="small"
      type="inner"
      data-testid="webhook-endpoint"
      title={
        <Space wrap size={4} style={{ whiteSpace: 'normal' }}>
          <Tag color={disabled ? 'red' : e.failing ? 'orange' : 'green'}>
            {t(disabled ? 'endpoints.disabled' : e.failing ? 'endpoints.failing' : 'endpoints.healthy')}
          </Tag>
          <Typography.Text code style={{ wordBreak: 'break-all' }}>
            {e.url}
          </Typography.Text>
        </Space>
      }
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        {disabled ? (
          <Alert
            type="error"
            showIcon
            role="alert"
            title={t('endpoints.disabledWhy')}
            description={e.disabled_reason}
          />
        ) : null}
        <Descriptions size="small" column={{ xs: 1, md: 2 }}>
          {disabled ? (
            <Descriptions.Item label={t('endpoints.disabledAt')}>
              {formatTime(e.disabled_at)}
            </Descriptions.Item>
          ) : null}
          {e.failing_since ? (
            <Descriptions.Item label={t('endpoints.failingSince')}>
              {formatTime(e.failing_since)}
            </Descriptions.Item>
          ) : null}
          <Descriptions.Item label={t('endpoints.lastFailure')}>
            {formatTime(e.last_failure_at)}
          </Descriptions.Item>
          <Descriptions.Item label={t('endpoints.lastError')}>
            <Typography.Text style={{ wordBreak: 'break-word' }}>{e.last_error ?? '—'}</Typography.Text>
          </Descriptions.Item>
          {disabled ? (
            <Descriptions.Item label={t('endpoints.held')}>{e.held_deliveries}</Descriptions.Item>
          ) : null}
        </Descriptions>
        {disabled && props.onEnable ? (
          <Popconfirm
            title={t('endpoints.enableConfirm')}
            description={t('endpoints.enableHint')}
            okText={t('endpoints.enable')}
            cancelText={t('common.cancel')}
            onConfirm={props.onEnable}
          >
            <Button type="primary" loading={props.enabling}>
              {t('endpoints.enable')}
            </Button>
          </Popconfirm>
        ) : null}
      </Space>
    </Card>
  );
}

/**
 * What the page is for when no endpoint has failed (a new account has none): how to get callbacks
 * (a task's metadata.callback_url) and what would show here.
 */
function NoFailedEndpoint() {
  const t = useT();
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="endpoints-empty">
      <Typography.Text strong>{t('endpoints.emptyTitle')}</Typography.Text>
      <Typography.Paragraph style={{ margin: 0 }}>{t('endpoints.emptyHow')}</Typography.Paragraph>
      <Typography.Paragraph
        code
        copyable={{ text: CALLBACK_EXAMPLE, tooltips: [t('common.copy'), t('common.copied')] }}
        style={{ margin: 0, wordBreak: 'break-all' }}
      >
        {CALLBACK_EXAMPLE}
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('endpoints.emptyWhat')}
      </Typography.Paragraph>
    </Space>
  );
}

const CALLBACK_EXAMPLE = '"metadata": { "callback_url": "https://example.com/hooks/mediagate" }';

/** The signed-in account's endpoints that failed (Webhooks page): why one is disabled, and enabling it. */
export function WebhookEndpoints() {
  const t = useT();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const client = useQueryClient();
  const list = $api.useQuery('get', '/console/api/webhooks/endpoints');
  const enable = useMutation({
    mutationFn: (endpointId: string) =>
      unwrap(
        api.POST('/console/api/webhooks/endpoints/{endpointId}/enable', { params: { path: { endpointId } } }),
      ),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: keyOf('/console/api/webhooks/endpoints') });
      void message.success(t('endpoints.enabled', { n: (r as { redelivered: number }).redelivered }));
    },
    onError: (err) => void message.error(errorText(err)),
  });
  const rows = (list.data?.data ?? []) as WebhookEndpoint[];
  return (
    <Card title={t('endpoints.title')}>
      {list.data && rows.length === 0 ? null : (
        <Typography.Paragraph type="secondary">{t('endpoints.intro')}</Typography.Paragraph>
      )}
      {list.error ? <ErrorAlert error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.isPending ? <Card loading variant="borderless" /> : null}
      {list.data && rows.length === 0 ? <NoFailedEndpoint /> : null}
      <Space orientation="vertical" style={{ width: '100%' }}>
        {rows.map((e) => (
          <EndpointCard
            key={e.id}
            endpoint={e}
            enabling={enable.isPending && enable.variables === e.id}
            onEnable={() => enable.mutateAsync(e.id)}
          />
        ))}
      </Space>
    </Card>
  );
}
