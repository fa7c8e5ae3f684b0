import { Spin } from 'antd';
import { useEffect } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useMe } from '../../auth';
import { ErrorAlert } from '../../components/ErrorAlert';

/**
 * The queue dashboard is the API's own page. The console is answered there only to a browser
 * without a session: it signs in and comes back with a full page load (which sends the cookie).
 */
export function QueueDashboardRedirect() {
  const me = useMe();
  const location = useLocation();
  const signedIn = Boolean(me.data);
  useEffect(() => {
    if (signedIn) window.location.replace(location.pathname + location.search);
  }, [signedIn, location.pathname, location.search]);
  if (me.isError) return <ErrorAlert error={me.error} style={{ margin: 24 }} />;
  if (me.isPending || signedIn) return <Spin style={{ margin: 48 }} />;
  return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
}
