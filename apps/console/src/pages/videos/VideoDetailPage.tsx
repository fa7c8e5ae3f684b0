import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Card, Descriptions, Result, Space, Typography } from 'antd';
import { Link, useParams } from 'react-router';
import { $api, ApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { formatMicroUsd, formatTime } from '../../lib/format';
import { useGo } from '../../lib/use-go';
import { useLiveTasks } from '../../lib/use-live-tasks';
import { CallbackDeliveries, type Delivery } from './components/CallbackDeliveries';
import { LiveBadge } from './components/LiveBadge';
import { TaskFailure } from './components/TaskFailure';
import { InputImage, TaskMedia } from './components/TaskMedia';
import { TaskProgress } from './components/TaskProgress';
import { costOf, inputImageOf } from './types';
import { PageTitle } from '../../components/PageTitle';

const terminal = (s?: string) => s === 'succeeded' || s === 'failed';
const isMissing = (error: unknown) => error instanceof ApiError && error.status === 404;

/** One video task, live: its state, progress and time left, its video, cost, input and callbacks. */
export function VideoDetailPage() {
  const t = useT();
  const go = useGo();
  const { taskId = '' } = useParams();
  const live = useLiveTasks();
  const byTask = { params: { path: { taskId } } };
  const task = $api.useQuery('get', '/console/api/videos/{taskId}', byTask, {
    // the live stream refreshes it; polled only while the stream is down and the task runs. An id
    // that names no task of this account is not asked again
    refetchInterval: (q) =>
      live || terminal(q.state.data?.status) || isMissing(q.state.error) ? false : 3_000,
  });
  const callbacks = $api.useQuery('get', '/console/api/videos/{taskId}/callbacks', byTask, {
    select: (r): Delivery[] => r.data as Delivery[],
    refetchInterval: 10_000,
    // a task that could not be read has no deliveries to show
    enabled: task.isSuccess,
  });
  const v = task.data;
  const missing = isMissing(task.error);
  const callbackUrl = (v?.metadata as { callback_url?: string } | undefined)?.callback_url;
  const cost = v ? costOf(v) : null;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Space size="middle" wrap>
        <Link to="/console/videos">
          <ArrowLeftOutlined /> {t('nav.videos')}
        </Link>
        <LiveBadge live={live} />
      </Space>
      <PageTitle breakAll style={{ fontSize: 24 }}>
        {taskId}
      </PageTitle>
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
            <TaskMedia task={v} />
            {v.status === 'failed' && v.error ? <TaskFailure error={v.error} /> : null}
            <Descriptions column={{ xs: 1, md: 2 }} bordered size="small">
              <Descriptions.Item label={t('videos.status')}>
                <TaskProgress task={v} />
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.cost')}>
                <span data-testid="task-cost">{formatMicroUsd(cost)}</span>
                {v.refunded_micro_usd > 0 ? (
                  <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                    {t('videos.costRefunded', {
                      charged: formatMicroUsd(v.charged_micro_usd),
                      refunded: formatMicroUsd(v.refunded_micro_usd),
                    })}
                  </Typography.Text>
                ) : null}
              </Descriptions.Item>
              <Descriptions.Item label={t('billing.model')}>{v.model}</Descriptions.Item>
              <Descriptions.Item label={t('videos.key')}>
                {v.api_key ? `${v.api_key.name} (${v.api_key.prefix})` : t('videos.keyDeleted')}
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.prompt')} span={2}>
                <span style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{v.prompt}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.inputImage')} span={2}>
                <InputImage url={inputImageOf(v)} />
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
      {v ? <CallbackDeliveries taskId={taskId} query={callbacks} /> : null}
    </Space>
  );
}
