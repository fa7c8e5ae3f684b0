import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Spin } from 'antd';
import type { ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { api, keyOf, unwrap } from './api/client';
import type { components } from './api/schema';
import { ErrorAlert } from './components/ErrorAlert';
import { useT } from './i18n/i18n';

/** The signed-in account, as GET /console/api/me answers it. */
export type Me = components['schemas']['Account'];

/**
 * The signed-in account, or null when there is no session. Asked of GET /console/api/session,
 * which answers 200 either way: an anonymous visit is no failed request in the browser's console.
 */
export function useMe() {
  return useQuery({
    queryKey: keyOf('/console/api/session'),
    queryFn: async (): Promise<Me | null> => (await unwrap(api.GET('/console/api/session'))).account ?? null,
    staleTime: 30_000,
  });
}

/** A local path to go to after signing in (never another origin). */
export function safeNext(next: string | null | undefined, fallback = '/console'): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : fallback;
}

function FullPageSpin() {
  const t = useT();
  return (
    <div style={{ display: 'grid', placeItems: 'center', minHeight: '60vh' }}>
      <Spin size="large" description={t('common.loading')} />
    </div>
  );
}

/** Shows the children to a signed-in account; sends anyone else to the sign-in page and back. */
export function RequireSession({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  // a cached "nobody" being checked again (after signing in) is not yet a reason to leave
  if (me.isPending || (me.data === null && me.isFetching)) return <FullPageSpin />;
  if (me.isError)
    return <ErrorAlert error={me.error} style={{ margin: 24 }} onRetry={() => void me.refetch()} />;
  if (!me.data) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/login?next=${next}`} replace />;
  }
  return children;
}

/** Ends the session and returns to the sign-in page. */
export function useLogout() {
  const client = useQueryClient();
  const navigate = useNavigate();
  return async () => {
    try {
      await unwrap(api.POST('/console/api/logout'));
    } finally {
      client.clear();
      client.setQueryData(keyOf('/console/api/session'), null);
      navigate('/login', { replace: true });
    }
  };
}
