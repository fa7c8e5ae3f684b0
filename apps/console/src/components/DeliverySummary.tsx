import { Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import type { components } from '../api/schema';
import { useT } from '../i18n/i18n';
import { formatTime } from '../lib/format';

type Delivery = Pick<components['schemas']['CallbackDelivery'], 'event_type' | 'attempt_count' | 'url'> & {
  /** when the next attempt goes (the customer's view has it) */
  next_attempt_at?: number | null;
};

/** A callback delivery in one cell, for a phone's width: its event, state, attempts and address. */
export function DeliverySummary({ delivery: d, status }: { delivery: Delivery; status: ReactNode }) {
  const t = useT();
  return (
    <Space orientation="vertical" size={2}>
      <Typography.Text strong style={{ wordBreak: 'break-all' }}>
        {d.event_type}
      </Typography.Text>
      {status}
      <Typography.Text type="secondary">
        {t('videos.attempts')}: {d.attempt_count}
        {d.next_attempt_at ? ` · ${t('videos.nextAttempt')}: ${formatTime(d.next_attempt_at)}` : ''}
      </Typography.Text>
      <Typography.Text type="secondary" style={{ wordBreak: 'break-all' }}>
        {d.url}
      </Typography.Text>
    </Space>
  );
}
