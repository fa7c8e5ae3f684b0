import { Space, Typography } from 'antd';
import { AuditLog } from '../../components/AuditLog';
import { useT } from '../../i18n/i18n';
import { PageTitle } from '../../components/PageTitle';

/** Every operator action on every account, newest first. */
export function AuditLogPage() {
  const t = useT();
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.audit')}</PageTitle>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('audit.intro')}
      </Typography.Paragraph>
      <AuditLog />
    </Space>
  );
}
