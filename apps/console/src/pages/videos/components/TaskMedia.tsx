import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Space, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n/i18n';
import { downloadLink } from '../../../lib/download';
import { formatTime } from '../../../lib/format';
import { mediaStateOf, type VideoTask } from '../types';
import { Thumbnail } from './Thumbnail';

/**
 * What a task made: the player with download and copy-link buttons while the video is kept, else
 * why there is nothing to play (not finished, deleted, expired), never an empty player.
 */
export function TaskMedia({ task }: { task: VideoTask }) {
  const t = useT();
  const { message } = App.useApp();
  const [playError, setPlayError] = useState<string | null>(null);
  const state = mediaStateOf(task);
  if (state === 'deleted' || state === 'expired') {
    return (
      <Space orientation="vertical" size="small" data-testid="video-gone">
        <Thumbnail task={task} width={240} />
        <Alert
          type="info"
          showIcon
          title={t(`videos.media.${state}`)}
          description={
            state === 'deleted'
              ? t('videos.media.deletedHint', { time: formatTime(task.media_deleted_at) })
              : t('videos.media.expiredHint', { time: formatTime(task.expires_at) })
          }
        />
      </Space>
    );
  }
  if (state !== 'playable' || !task.video_url) return <Thumbnail task={task} width={240} />;
  const url = task.video_url;
  return (
    <div style={{ maxWidth: 720 }}>
      {/* biome-ignore lint/a11y/useMediaCaption: generated videos have no captions */}
      <video
        data-testid="video-player"
        src={url}
        poster={task.thumbnail_url ?? undefined}
        controls
        preload="metadata"
        style={{ width: '100%', borderRadius: 6, background: '#000' }}
        aria-label={t('videos.player')}
        onError={() => setPlayError(t('videos.playError'))}
      />
      {playError ? <Alert type="error" showIcon title={playError} style={{ marginTop: 8 }} /> : null}
      <Space wrap style={{ marginTop: 8 }}>
        <Button icon={<DownloadOutlined />} href={downloadLink(url)} download={`${task.id}.mp4`}>
          {t('videos.download')}
        </Button>
        <Button
          icon={<CopyOutlined />}
          onClick={() =>
            navigator.clipboard.writeText(url).then(
              () => void message.success(t('videos.linkCopied')),
              () => void message.error(t('videos.linkNotCopied')),
            )
          }
        >
          {t('videos.copyLink')}
        </Button>
        {task.expires_at ? (
          <Typography.Text type="secondary">
            {t('videos.expiresAt', { time: formatTime(task.expires_at) })}
          </Typography.Text>
        ) : null}
      </Space>
    </div>
  );
}

/** Whether an image loads without asking: inline (data:) or from the console's own server. */
const loadsAtOnce = (url: string) =>
  url.startsWith('data:image/') || url.startsWith(`${window.location.origin}/`);

/**
 * The image the task was made from. An image on another server is loaded when asked (opening the
 * page does not call a third party), and a link is offered when it cannot be shown.
 */
export function InputImage({ url }: { url: string | null }) {
  const t = useT();
  const [asked, setAsked] = useState(false);
  const [failed, setFailed] = useState(false);
  if (!url) return <Typography.Text type="secondary">—</Typography.Text>;
  const link = url.startsWith('data:') ? null : (
    <Typography.Link href={url} target="_blank" rel="noreferrer noopener" style={{ wordBreak: 'break-all' }}>
      {url}
    </Typography.Link>
  );
  if (failed || (!loadsAtOnce(url) && !/^https:/i.test(url))) {
    return (
      <Typography.Text type="secondary">
        {t('videos.inputNotShown')} {link}
      </Typography.Text>
    );
  }
  if (!loadsAtOnce(url) && !asked) {
    return (
      <Space orientation="vertical" size={4}>
        {link}
        <Button size="small" onClick={() => setAsked(true)}>
          {t('videos.showInput')}
        </Button>
      </Space>
    );
  }
  return (
    <img
      src={url}
      alt={t('videos.inputImage')}
      data-testid="input-image"
      style={{ maxWidth: 240, maxHeight: 180, borderRadius: 4, objectFit: 'contain', background: '#f0f2f5' }}
      onError={() => setFailed(true)}
    />
  );
}
