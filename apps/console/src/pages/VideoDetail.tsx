import { ArrowLeftOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Progress,
  Result,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { $api, ApiError, api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorAlert } from '../components/ErrorAlert';
import { ListCard } from '../components/ListCard';
import { TaskStatusTag } from '../components/TaskStatus';
import { useT } from '../i18n/i18n';
import { formatTime } from '../lib/format';
import { useGo } from '../lib/use-go';
import { Thumbnail } from './Videos';

type Delivery = components['schemas']['CallbackDelivery'] & {
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

const terminal = (s?: string) => s === 'succeeded' || s === 'failed';
const DELIVERY_COLORS = {
  pending: 'processing',
  succeeded: 'success',
  failed: 'error',
  held: 'warning',
} as const;
const isMissing = (error: unknown) => error instanceof ApiError && error.status === 404;

export function VideoDetailPage() {
  const t = useT();
  const go = useGo();
  const { message } = App.useApp();
  const { taskId = '' } = useParams();
  const client = useQueryClient();
  const [playError, setPlayError] = useState<string | null>(null);
  const byTask = { params: { path: { taskId } } };
  const task = $api.useQuery('get', '/console/api/videos/{taskId}', byTask, {
    // until it ends; an id that names no task of this account is not asked again
    refetchInterval: (q) => (terminal(q.state.data?.status) || isMissing(q.state.error) ? false : 3_000),
  });
  const callbacks = $api.useQuery('get', '/console/api/videos/{taskId}/callbacks', byTask, {
    select: (r) => r.data,
    refetchInterval: 10_000,
    // a task that could not be read has no deliveries to show
    enabled: task.isSuccess,
  });
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
        queryKey: $api.queryOptions('get', '/console/api/videos/{taskId}/callbacks', byTask).queryKey,
      });
    },
    onError: (err) => void message.error(err.message),
  });
  const v = task.data;
  const missing = isMissing(task.error);
  const callbackUrl = (v?.metadata as { callback_url?: string } | undefined)?.callback_url;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Link to="/console/videos">
        <ArrowLeftOutlined /> {t('nav.videos')}
      </Link>
      <Typography.Title level={2} style={{ margin: 0, wordBreak: 'break-all' }}>
        {taskId}
      </Typography.Title>
      {missing ? (
        <Result
          status="404"
          title={t('videos.notFound')}
          subTitle={t('videos.notFoundHint')}
          extra={
            <Button type="primary" href="/console/videos" onClick={go('/console/videos')}>
              {t('nav.videos')}
            </Button>
          }
        />
      ) : task.error ? (
        <ErrorAlert error={task.error} onRetry={() => void task.refetch()} />
      ) : null}
      {task.isPending ? <Card loading /> : null}
      {v ? (
        <Card>
          <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
            {v.status === 'succeeded' && v.video_url ? (
              <div style={{ maxWidth: 720 }}>
                {/* biome-ignore lint/a11y/useMediaCaption: generated videos have no captions */}
                <video
                  data-testid="video-player"
                  src={v.video_url}
                  poster={v.thumbnail_url ?? undefined}
                  controls
                  preload="metadata"
                  style={{ width: '100%', borderRadius: 6, background: '#000' }}
                  aria-label={t('videos.player')}
                  onError={() => setPlayError(t('videos.playError'))}
                />
                {playError ? (
                  <Alert type="error" showIcon title={playError} style={{ marginTop: 8 }} />
                ) : null}
                {v.expires_at ? (
                  <Typography.Text type="secondary">
                    {t('videos.expiresAt', { time: formatTime(v.expires_at) })}
                  </Typography.Text>
                ) : null}
              </div>
            ) : (
              <Thumbnail task={v} width={240} />
            )}
            {v.status === 'failed' && v.error ? (
              <Alert type="error" showIcon title={v.error.code} description={v.error.message} />
            ) : null}
            <Descriptions column={{ xs: 1, md: 2 }} bordered size="small">
              <Descriptions.Item label={t('videos.status')}>
                <TaskStatusTag status={v.status} />
                {!terminal(v.status) ? (
                  <Progress percent={v.progress} size="small" style={{ width: 120 }} />
                ) : null}
              </Descriptions.Item>
              <Descriptions.Item label={t('billing.model')}>{v.model}</Descriptions.Item>
              <Descriptions.Item label={t('videos.prompt')} span={2}>
                <span style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{v.prompt}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.created')}>{formatTime(v.created_at)}</Descriptions.Item>
              <Descriptions.Item label={t('videos.completed')}>
                {formatTime(v.completed_at)}
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.metadata')} span={2}>
                <pre style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all', fontSize: 12 }}>
                  {JSON.stringify(v.metadata, null, 2)}
                </pre>
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.callbackUrl')} span={2}>
                {callbackUrl ?? t('videos.noCallback')}
              </Descriptions.Item>
            </Descriptions>
          </Space>
        </Card>
      ) : null}
      {v ? (
        <ListCard<Delivery>
          title={t('videos.callbacks')}
          query={callbacks}
          rows={callbacks.data}
          scrollX={720}
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
            { title: t('videos.event'), dataIndex: 'event_type' },
            {
              title: t('videos.deliveryStatus'),
              dataIndex: 'status',
              render: (s: string) =>
                s === 'pending' || s === 'succeeded' || s === 'failed' || s === 'held' ? (
                  <Tag color={DELIVERY_COLORS[s]}>{t(`videos.delivery.${s}`)}</Tag>
                ) : (
                  <Tag>{s}</Tag>
                ),
            },
            { title: t('videos.attempts'), dataIndex: 'attempt_count' },
            {
              title: t('videos.nextAttempt'),
              dataIndex: 'next_attempt_at',
              render: (s: number | null) => formatTime(s),
            },
            { title: t('videos.url'), dataIndex: 'url', ellipsis: true },
            {
              title: t('common.actions'),
              // kept in view on a narrow screen, where the other columns scroll
              fixed: 'right',
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
      ) : null}
    </Space>
  );
}
