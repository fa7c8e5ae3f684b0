import { Button, Result } from 'antd';
import { Link } from 'react-router';
import { useT } from '../i18n/i18n';

export function NotFoundPage() {
  const t = useT();
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('notFound.text')}
      extra={
        <Link to="/console">
          <Button type="primary">{t('nav.dashboard')}</Button>
        </Link>
      }
    />
  );
}
