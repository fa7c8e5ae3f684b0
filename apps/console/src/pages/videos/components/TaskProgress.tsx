import { Progress, Space, Typography } from 'antd';
import { TaskStatusTag } from '../../../components/TaskStatus';
import { useT } from '../../../i18n/i18n';
import { mediaStateOf, type VideoTask } from '../types';
import { useSecondsUntil } from '../../../lib/use-countdown';

/** "about 2 min 5 s left", or "finishing" once the estimate has passed. */
function Eta({ at }: { at: number | null | undefined }) {
  const t = useT();
  const left = useSecondsUntil(at);
  if (left === null) return null;
  const text =
    left === 0
      ? t('videos.eta.finishing')
      : left < 60
        ? t('videos.eta.seconds', { s: left })
        : t('videos.eta.minutes', { m: Math.floor(left / 60), s: left % 60 });
  return (
    <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="task-eta">
      {text}
    </Typography.Text>
  );
}

/** A task's status, its progress and time left while it runs, and what became of its video. */
export function TaskProgress({ task, width = 120 }: { task: VideoTask; width?: number }) {
  const t = useT();
  const running = task.status === 'pending' || task.status === 'processing';
  const media = mediaStateOf(task);
  return (
    <Space orientation="vertical" size={0} data-testid="task-status">
      <Space size={4} wrap>
        <TaskStatusTag status={task.status} />
        {media === 'deleted' || media === 'expired' ? (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t(`videos.media.${media}`)}
          </Typography.Text>
        ) : null}
      </Space>
      {running ? (
        <>
          <Progress
            percent={task.progress}
            size="small"
            style={{ width }}
            aria-label={t('videos.progress')}
          />
          <Eta at={task.estimated_completion_at} />
        </>
      ) : null}
    </Space>
  );
}
