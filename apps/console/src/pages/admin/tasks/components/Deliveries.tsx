import { Space, Tag, Typography } from 'antd';
import { $api } from '../../../../api/client';
import type { components } from '../../../../api/schema';
import { useCompactRows } from '../../../../components/CompactRows';
import { DeliverySummary } from '../../../../components/DeliverySummary';
import { ListCard } from '../../../../components/ListCard';
import type { MessageKey } from '../../../../i18n/en';
import { useT } from '../../../../i18n/i18n';
import { formatTime } from '../../../../lib/format';

type Delivery = components['schemas']['CallbackDelivery'];
const COLORS: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'blue', held: 'orange' };

/** A task's callback deliveries, each with its attempts (when, status code, latency, error). */
export function Deliveries({ taskId, refetchInterval }: { taskId: string; refetchInterval: number | false }) {
  const t = useT();
  const compact = useCompactRows();
  const list = $api.useQuery(
    'get',
    '/admin/api/tasks/{taskId}/callbacks',
    { params: { path: { taskId } } },
    { refetchInterval },
  );
  const statusTag = (s: string) => (
    <Tag color={COLORS[s]}>{t(`videos.delivery.${s}` as MessageKey) ?? s}</Tag>
  );
  return (
    <ListCard<Delivery>
      title={t('videos.callbacks')}
      query={list}
      rows={list.data?.data}
      scrollX={compact ? undefined : 720}
      empty={t('videos.noCallbacks')}
      columns={
        compact
          ? [
              {
                title: t('videos.event'),
                key: 'delivery',
                render: (_v: unknown, d: Delivery) => (
                  <DeliverySummary delivery={d} status={statusTag(d.status)} />
                ),
              },
            ]
          : [
              { title: t('videos.event'), dataIndex: 'event_type' },
              { title: t('videos.deliveryStatus'), dataIndex: 'status', render: statusTag },
              { title: t('videos.attempts'), dataIndex: 'attempt_count', align: 'right' },
              {
                title: t('videos.url'),
                dataIndex: 'url',
                render: (u: string) => (
                  <Typography.Text style={{ wordBreak: 'break-all' }}>{u}</Typography.Text>
                ),
              },
            ]
      }
      expandable={{
        rowExpandable: (d) => d.attempts.length > 0,
        expandedRowRender: (d) => (
          <Space orientation="vertical" size={2}>
            {d.attempts.map((a) => (
              <Typography.Text key={a.attempt} style={{ fontSize: 12 }}>
                #{a.attempt} · {formatTime(a.started_at)} · {t('videos.statusCode')} {a.status_code ?? '—'} ·{' '}
                {a.latency_ms ?? '—'} ms
                {a.error ? ` · ${a.error}` : ''}
              </Typography.Text>
            ))}
          </Space>
        ),
      }}
    />
  );
}
