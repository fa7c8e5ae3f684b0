import { Tag } from 'antd';
import { useT } from '../i18n/i18n';

const STATUS_COLORS = {
  pending: 'default',
  processing: 'processing',
  succeeded: 'success',
  failed: 'error',
} as const;

/** A video task's status, in words and its colour. */
export function TaskStatusTag({ status }: { status: keyof typeof STATUS_COLORS }) {
  const t = useT();
  return <Tag color={STATUS_COLORS[status]}>{t(`status.${status}`)}</Tag>;
}
