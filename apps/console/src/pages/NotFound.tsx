import { Button, Result } from 'antd';
import { useT } from '../i18n/i18n';
import { useGo } from '../lib/use-go';

export function NotFoundPage() {
  const t = useT();
  const go = useGo();
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('notFound.text')}
      extra={
        <Button type="primary" href="/console" onClick={go('/console')}>
          {t('nav.dashboard')}
        </Button>
      }
    />
  );
}
