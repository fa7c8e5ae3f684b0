import { Result } from 'antd';
import { Outlet } from 'react-router';
import { useMe } from '../auth';
import { useT } from '../i18n/i18n';
import { PageTitle } from '../components/PageTitle';

/** Operator pages: admin accounts only (the API checks it too, on every call). */
export function RequireAdmin() {
  const me = useMe();
  const t = useT();
  if (me.data?.role !== 'admin')
    return (
      <Result
        status="403"
        title={
          <PageTitle style={{ fontSize: 24, textAlign: 'center' }} title={t('admin.forbidden')}>
            403
          </PageTitle>
        }
        subTitle={t('admin.only')}
      />
    );
  return <Outlet />;
}
