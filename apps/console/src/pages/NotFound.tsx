import { Button, Result } from 'antd';
import { useT } from '../i18n/i18n';
import { useGo } from '../lib/use-go';
import { PageTitle } from '../components/PageTitle';

export function NotFoundPage() {
  const t = useT();
  const go = useGo();
  return (
    <Result
      status="404"
      title={
        <PageTitle style={{ fontSize: 24, textAlign: 'center' }} title={t('notFound.title')}>
          404
        </PageTitle>
      }
      subTitle={t('notFound.text')}
      extra={
        <Button type="primary" href="/console" onClick={go('/console')}>
          {t('nav.dashboard')}
        </Button>
      }
    />
  );
}
