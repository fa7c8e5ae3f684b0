import { DownloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Progress, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { $api } from '../../../api/client';
import type { components } from '../../../api/schema';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { TaskStatusTag } from '../../../components/TaskStatus';
import { useT } from '../../../i18n/i18n';
import { downloadLink } from '../../../lib/download';
import { useSecondsUntil } from '../../../lib/use-countdown';

type VideoTask = components['schemas']['VideoTask'];

const finished = (s: string | undefined) => s === 'succeeded' || s === 'failed';

/**
 * One task followed live on its event stream (GET /console/api/playground/videos/{id}/events, the
 * console session): each move replaces the task shown; without the stream it is read every 2 s. Progress and the time left while it runs; the player and a download once it succeeded.
 */
export function LiveTask({ taskId }: { taskId: string }) {
  const t = useT();
  const client = useQueryClient();
  const [live, setLive] = useState(false);
  const byTask = { params: { path: { taskId } } };
  const task = $api.useQuery('get', '/console/api/videos/{taskId}', byTask, {
    refetchInterval: (q) => (finished(q.state.data?.status) ? false : live ? 15_000 : 2_000),
  });
  const done = finished(task.data?.status);
  useEffect(() => {
    if (done || typeof EventSource === 'undefined') return;
    const key = $api.queryOptions('get', '/console/api/videos/{taskId}', {
      params: { path: { taskId } },
    }).queryKey;
    // the task's own stream on the session: the task object at once and on every move
    const source = new EventSource(`/console/api/playground/videos/${encodeURIComponent(taskId)}/events`, {
      withCredentials: true,
    });
    source.onopen = () => setLive(true);
    source.onmessage = (e: MessageEvent<string>) => {
      try {
        const moved = JSON.parse(e.data) as VideoTask;
        client.setQueryData(key, moved);
        if (finished(moved.status)) source.close();
      } catch {
        void client.invalidateQueries({ queryKey: key });
      }
    };
    source.onerror = () => setLive(false);
    return () => source.close();
  }, [taskId, done, client]);
  const v = task.data;
  const left = useSecondsUntil(done ? null : v?.estimated_completion_at);
  return (
    <Card title={t('playground.result')} extra={v ? <TaskStatusTag status={v.status} /> : null}>
      {task.error ? <ErrorAlert error={task.error} onRetry={() => void task.refetch()} /> : null}
      {!v ? (
        <Card loading bordered={false} />
      ) : (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Space wrap size={[12, 4]}>
            <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
              {v.id}
            </Typography.Text>
            <Link to={`/console/videos/${encodeURIComponent(v.id)}`}>{t('playground.openTask')}</Link>
          </Space>
          {!done ? (
            <>
              <Progress percent={v.progress} status="active" aria-label={t('playground.progress')} />
              <Typography.Text type="secondary" role="status">
                {left !== null ? t('playground.eta', { seconds: left }) : t('playground.etaUnknown')}
                {live ? ` · ${t('playground.live')}` : ''}
              </Typography.Text>
            </>
          ) : null}
          {v.status === 'failed' ? (
            <Alert type="error" showIcon title={v.error?.message ?? t('status.failed')} />
          ) : null}
          {v.status === 'succeeded' && v.video_url ? (
            <>
              {/* no poster: the video plays at once, and its first frame is made a moment after the
                  task succeeds (the stream's thumbnail_url answers 404 until the copy is stored) */}
              <video
                data-testid="playground-player"
                src={v.video_url}
                controls
                autoPlay
                muted
                playsInline
                style={{ width: '100%', maxHeight: 420, background: '#000', borderRadius: 8 }}
              />
              <Space wrap>
                <Button icon={<DownloadOutlined />} href={downloadLink(v.video_url)} download={`${v.id}.mp4`}>
                  {t('playground.download')}
                </Button>
                <Typography.Text copyable={{ text: v.video_url }}>{t('playground.copyLink')}</Typography.Text>
              </Space>
            </>
          ) : null}
        </Space>
      )}
    </Card>
  );
}
