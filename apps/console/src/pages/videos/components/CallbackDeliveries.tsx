import { type UseQueryResult, useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Space, Table, Tag, Typography } from 'antd';
import { $api, api, unwrap } from '../../../api/client';
import type { components } from '../../../api/schema';
import { useCompactRows } from '../../../components/CompactRows';
import { DeliverySummary } from '../../../components/DeliverySummary';
import { useErrorText } from '../../../components/ErrorAlert';
import { ListCard } from '../../../components/ListCard';
import { useT } from '../../../i18n/i18n';
import { formatTime } from '../../../lib/format';

export type Delivery = components['schemas']['CallbackDelivery'] & {
  next_attempt_at?: number | null;
  last_error?: string | null;
  attempts: Array<{
    attempt: number;
    started_at: number | null;
    status_code: number | null;
    latency_ms: number | null;
    error: string | null;
    response_body?: string | null;
  }>;
};

const DELIVERY_COLORS = {
  pending: 'processing',
  succeeded: 'success',
  failed: 'error',
  held: 'warning',
} as const;

/** A task's callback deliveries with their attempts, each sent again on request. */
export function CallbackDeliveries({
  taskId,
  query,
}: {
  taskId: string;
  query: UseQueryResult<Delivery[], unknown>;
}) {
  const t = useT();
  // a phone gets one cell per delivery (event, state, attempts, address) beside its button
  const compact = useCompactRows();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const client = useQueryClient();
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(
        api.POST('/console/api/videos/{taskId}/callbacks/{deliveryId}/redeliver', {
          params: { path: { taskId, deliveryId } },
        }),
      ),
    onSuccess: () => {
      void message.success(t('videos.redelivered'));
      void client.invalidateQueries({
        queryKey: $api.queryOptions('get', '/console/api/videos/{taskId}/callbacks', {
          params: { path: { taskId } },
        }).queryKey,
      });
    },
    onError: (err) => void message.error(errorText(err)),
  });
  const statusTag = (s: string) =>
    s === 'pending' || s === 'succeeded' || s === 'failed' || s === 'held' ? (
      <Tag color={DELIVERY_COLORS[s]}>{t(`videos.delivery.${s}`)}</Tag>
    ) : (
      <Tag>{s}</Tag>
    );
  const wideColumns = [
    { title: t('videos.event'), dataIndex: 'event_type' },
    { title: t('videos.deliveryStatus'), dataIndex: 'status', render: statusTag },
    { title: t('videos.attempts'), dataIndex: 'attempt_count' },
    {
      title: t('videos.nextAttempt'),
      dataIndex: 'next_attempt_at',
      render: (s: number | null) => formatTime(s),
    },
    { title: t('videos.url'), dataIndex: 'url', ellipsis: true },
  ];
  return (
    <ListCard<Delivery>
      title={t('videos.callbacks')}
      query={query}
      rows={query.data}
      scrollX={compact ? undefined : 720}
      empty={t('videos.noCallbacks')}
      expandable={{
        expandedRowRender: (d) => (
          <Table
            rowKey="attempt"
            size="small"
            pagination={false}
            dataSource={d.attempts}
            locale={{ emptyText: t('videos.noAttempts') }}
            columns={[
              { title: '#', dataIndex: 'attempt', width: 48 },
              {
                title: t('videos.attemptAt'),
                dataIndex: 'started_at',
                render: (s: number | null) => formatTime(s),
              },
              {
                title: t('videos.statusCode'),
                dataIndex: 'status_code',
                render: (c: number | null) => c ?? '—',
              },
              {
                title: t('videos.latency'),
                dataIndex: 'latency_ms',
                render: (ms: number | null) => (ms === null ? '—' : `${ms} ms`),
              },
              { title: t('videos.error'), dataIndex: 'error', render: (e: string | null) => e ?? '—' },
              {
                title: t('videos.response'),
                dataIndex: 'response_body',
                render: (b: string | null | undefined) => (
                  <Typography.Text code ellipsis={{ tooltip: b }} style={{ maxWidth: 240 }}>
                    {b || '—'}
                  </Typography.Text>
                ),
              },
            ]}
          />
        ),
      }}
      columns={[
        ...(compact
          ? [
              {
                title: t('videos.event'),
                key: 'delivery',
                render: (_v: unknown, d: Delivery) => (
                  <DeliverySummary delivery={d} status={statusTag(d.status)} />
                ),
              },
            ]
          : wideColumns),
        {
          title: t('common.actions'),
          // kept in view where the other columns scroll
          fixed: compact ? undefined : 'right',
          render: (_v, d) => (
            <Button
              size="small"
              loading={redeliver.isPending && redeliver.variables === d.id}
              onClick={() => redeliver.mutate(d.id)}
            >
              {t('videos.redeliver')}
            </Button>
          ),
        },
      ]}
    />
  );
}
