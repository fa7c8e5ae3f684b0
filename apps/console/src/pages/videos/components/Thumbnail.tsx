import { DeleteOutlined, FieldTimeOutlined, PlaySquareOutlined } from '@ant-design/icons';
import { useT } from '../../../i18n/i18n';
import { mediaStateOf, type VideoTask } from '../types';

/**
 * A task's first frame once stored (never a link that would answer 404), else a placeholder that
 * says why there is none: not made yet, deleted, or expired.
 */
export function Thumbnail({ task, width = 96 }: { task: VideoTask; width?: number }) {
  const t = useT();
  const style = { width, height: (width * 9) / 16, borderRadius: 4, background: '#f0f2f5' };
  const state = mediaStateOf(task);
  if (task.thumbnail_url && state === 'playable') {
    return (
      <img
        src={task.thumbnail_url}
        alt={t('videos.thumbnailOf', { id: task.id })}
        style={{ ...style, objectFit: 'cover' }}
        loading="lazy"
      />
    );
  }
  const [Icon, label] =
    state === 'deleted'
      ? [DeleteOutlined, t('videos.media.deleted')]
      : state === 'expired'
        ? [FieldTimeOutlined, t('videos.media.expired')]
        : [PlaySquareOutlined, t('videos.noThumbnail')];
  return (
    <div
      style={{ ...style, display: 'grid', placeItems: 'center', color: '#8c8c8c' }}
      role="img"
      aria-label={label}
    >
      <Icon style={{ fontSize: width / 4 }} />
    </div>
  );
}
