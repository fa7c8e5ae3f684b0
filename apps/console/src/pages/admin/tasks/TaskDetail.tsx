import { ArrowLeftOutlined } from '@ant-design/icons';
import { Card, Descriptions, Progress, Space, Typography } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { $api } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { TaskStatusTag } from '../../../components/TaskStatus';
import { useT } from '../../../i18n/i18n';
import { formatTime } from '../../../lib/format';
import { Deliveries } from './components/Deliveries';
import { RetryButton, useRetryTask } from './components/RetryButton';
import { AccountLink } from './components/TaskTable';
import { PageTitle } from '../../../components/PageTitle';

const terminal = (s: string | undefined) => s === 'succeeded' || s === 'failed';

/** One task of any account, as operators see it: its account, upstream, error, callbacks, and a retry. */
export function AdminTaskDetailPage() {
  const t = useT();
  const navigate = useNavigate();
  const { taskId = '' } = useParams();
  const task = $api.useQuery(
    'get',
    '/admin/api/tasks/{taskId}',
    { params: { path: { taskId } } },
    { refetchInterval: (q) => (terminal(q.state.data?.status) || q.state.error ? false : 3_000) },
  );
  const retry = useRetryTask((id) => navigate(`/admin/tasks/${id}`));
  const v = task.data;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Link to="/admin/tasks">
        <ArrowLeftOutlined /> {t('nav.tasks')}
      </Link>
      <PageTitle breakAll>{taskId}</PageTitle>
      {task.error ? <ErrorAlert error={task.error} onRetry={() => void task.refetch()} /> : null}
      {task.isPending ? <Card loading /> : null}
      {v ? (
        <>
          <Card extra={<RetryButton task={v} retry={retry} size="middle" />} title={t('videos.task')}>
            <Descriptions column={{ xs: 1, md: 2 }} size="small" bordered>
              <Descriptions.Item label={t('admin.account')}>
                <AccountLink id={v.account_id} email={v.account_email} />
              </Descriptions.Item>
              <Descriptions.Item label={t('billing.model')}>{v.model}</Descriptions.Item>
              <Descriptions.Item label={t('videos.status')}>
                <Space wrap>
                  <TaskStatusTag status={v.status} />
                  {terminal(v.status) ? null : (
                    <Progress percent={v.progress} size="small" style={{ width: 140, margin: 0 }} />
                  )}
                </Space>
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.error')}>
                {v.error ? (
                  <Typography.Text type="danger">
                    {v.error.code}: {v.error.message}
                  </Typography.Text>
                ) : (
                  '—'
                )}
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.created')}>{formatTime(v.created_at)}</Descriptions.Item>
              <Descriptions.Item label={t('videos.completed')}>
                {formatTime(v.completed_at)}
              </Descriptions.Item>
              <Descriptions.Item label={t('admin.upstreamTask')}>
                {v.upstream_task_id ?? '—'} {v.upstream_channel ? `(${v.upstream_channel})` : ''}
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.player')}>
                {v.video_url ? (
                  <a href={v.video_url} target="_blank" rel="noreferrer">
                    {t('admin.openVideo')}
                  </a>
                ) : (
                  '—'
                )}
              </Descriptions.Item>
              <Descriptions.Item label={t('videos.prompt')} span={2}>
                <Typography.Paragraph style={{ margin: 0, whiteSpace: 'pre-wrap' }}>
                  {v.prompt}
                </Typography.Paragraph>
              </Descriptions.Item>
            </Descriptions>
          </Card>
          <Deliveries taskId={v.id} refetchInterval={terminal(v.status) ? 10_000 : 3_000} />
        </>
      ) : null}
    </Space>
  );
}
