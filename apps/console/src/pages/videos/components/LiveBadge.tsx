import { Badge, Tooltip } from 'antd';
import { useT } from '../../../i18n/i18n';

/** Says that the page follows changes as they happen (the live stream is open). */
export function LiveBadge({ live }: { live: boolean }) {
  const t = useT();
  if (!live) return null;
  return (
    <Tooltip title={t('videos.liveHint')}>
      <Badge status="processing" text={t('videos.live')} data-testid="live" />
    </Tooltip>
  );
}
