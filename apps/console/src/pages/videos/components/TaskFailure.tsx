import { Alert, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n/i18n';

/** Why a task failed, in the page's language: the vendor's or the gateway's code and words only in the details. */
export function TaskFailure({ error }: { error: { code: string; message: string } }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const known: Record<string, Parameters<typeof t>[0]> = {
    DataInspectionFailed: 'videos.failure.inspection',
    InvalidParameter: 'videos.failure.invalid',
    canceled: 'videos.failure.canceled',
    timeout: 'videos.failure.timeout',
  };
  const key = known[error.code] ?? 'videos.failure.other';
  return (
    <Alert
      type="error"
      showIcon
      title={t('videos.failure.title')}
      description={
        <span>
          {t(key)}{' '}
          <Typography.Link onClick={() => setOpen((o) => !o)} aria-expanded={open} style={{ fontSize: 12 }}>
            {t('error.details')}
          </Typography.Link>
          {open ? (
            <Typography.Text code type="secondary" style={{ display: 'block', marginTop: 4, fontSize: 12 }}>
              {error.code}: {error.message}
            </Typography.Text>
          ) : null}
        </span>
      }
    />
  );
}
