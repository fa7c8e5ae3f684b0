import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { type ReactNode, useEffect, useState } from 'react';
import { RouterProvider } from 'react-router';
import { ApiError, keyOf } from './api/client';
import { I18nProvider, useI18n } from './i18n/i18n';
import { router } from './routes';

/** 4xx answers are final (a retry would get the same); network failures and 5xx are retried once. */
const retry = (count: number, err: unknown) =>
  count < 1 && !(err instanceof ApiError && err.status >= 400 && err.status < 500);

export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError(err) {
        // a session that ended (logout elsewhere, expiry): the page asks who is signed in again
        if (err instanceof ApiError && err.code === 'invalid_session') {
          void client.invalidateQueries({ queryKey: keyOf('/console/api/session') });
        }
      },
    }),
    defaultOptions: { queries: { retry, refetchOnWindowFocus: false, staleTime: 5_000 } },
  });
  return client;
}

function Localized({ children }: { children: ReactNode }) {
  const { lang } = useI18n();
  useEffect(() => {
    dayjs.locale(lang === 'zh' ? 'zh-cn' : 'en');
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  }, [lang]);
  return (
    // two-character Chinese labels as written ("删除"), not spaced out by antd ("删 除")
    <ConfigProvider
      locale={lang === 'zh' ? zhCN : enUS}
      theme={{ token: { colorPrimary: '#1677ff' } }}
      button={{ autoInsertSpace: false }}
    >
      <AntApp>{children}</AntApp>
    </ConfigProvider>
  );
}

export function Providers({ children, client }: { children: ReactNode; client?: QueryClient }) {
  const [queryClient] = useState(() => client ?? createQueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <Localized>{children}</Localized>
      </I18nProvider>
    </QueryClientProvider>
  );
}

export function Root() {
  return (
    <Providers>
      <RouterProvider router={router} />
    </Providers>
  );
}
