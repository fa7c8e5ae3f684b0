import { Alert, Typography } from 'antd';
import { useT } from '../i18n/i18n';

/** A secret shown once (a new API key), with a copy button and the warning that it will not be shown again. */
export function SecretReveal({ value, label }: { value: string; label: string }) {
  const t = useT();
  return (
    <div>
      <Alert type="warning" showIcon title={t('keys.shownOnce')} style={{ marginBottom: 12 }} />
      <Typography.Text type="secondary">{label}</Typography.Text>
      <Typography.Paragraph
        copyable={{ text: value, tooltips: [t('common.copy'), t('common.copied')] }}
        code
        style={{ wordBreak: 'break-all', fontSize: 13, marginTop: 4 }}
        data-testid="secret-value"
      >
        {value}
      </Typography.Paragraph>
    </div>
  );
}
