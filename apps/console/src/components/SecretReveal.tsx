import { Alert, Typography, theme } from 'antd';
import { useT } from '../i18n/i18n';

/** A secret shown once (a new API key), with a copy button and the warning that it will not be shown again. */
export function SecretReveal({ value, label }: { value: string; label: string }) {
  const t = useT();
  const { token } = theme.useToken();
  return (
    <div>
      <Alert type="warning" showIcon title={t('keys.shownOnce')} style={{ marginBottom: 12 }} />
      <Typography.Text type="secondary">{label}</Typography.Text>
      {/* one box around the whole key, however it wraps, with the copy button beside it */}
      <div
        style={{
          display: 'flex',
          alignItems: 'flex-start',
          gap: 8,
          marginTop: 4,
          padding: '8px 12px',
          border: `1px solid ${token.colorBorderSecondary}`,
          borderRadius: token.borderRadius,
          background: token.colorFillQuaternary,
        }}
      >
        <code
          data-testid="secret-value"
          style={{
            flex: 1,
            minWidth: 0,
            wordBreak: 'break-all',
            fontSize: 13,
            fontFamily: token.fontFamilyCode,
          }}
        >
          {value}
        </code>
        <Typography.Text copyable={{ text: value, tooltips: [t('common.copy'), t('common.copied')] }} />
      </div>
    </div>
  );
}
