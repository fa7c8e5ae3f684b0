import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Empty, Space, Typography } from 'antd';
import { Link } from 'react-router';
import { $api, api, keyOf, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, useErrorText } from '../../components/ErrorAlert';
import { PagerBar, usePager } from '../../components/ListCard';
import { EndpointCard } from '../../components/WebhookEndpoints';
import { useT } from '../../i18n/i18n';
import { PageTitle } from '../../components/PageTitle';

type AdminEndpoint = components['schemas']['AdminWebhookEndpoint'];

/** Operators: the disabled webhook endpoints of every account, with the account, and enabling one. */
export function AdminWebhookEndpointsPage() {
  const t = useT();
  const { message } = App.useApp();
  // a toast speaks the page's language (error boxes keep the API's words for operators)
  const errorText = useErrorText();
  const client = useQueryClient();
  const pager = usePager();
  const after = pager.cursor;
  const list = $api.useQuery('get', '/admin/api/webhook-endpoints', {
    params: { query: { after, limit: pager.limit } },
  });
  const enable = useMutation({
    mutationFn: (e: AdminEndpoint) =>
      unwrap(
        api.POST('/admin/api/accounts/{id}/webhook-endpoints/{endpointId}/enable', {
          params: { path: { id: e.account_id, endpointId: e.id } },
        }),
      ),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: keyOf('/admin/api/webhook-endpoints') });
      void message.success(t('endpoints.enabled', { n: (r as { redelivered: number }).redelivered }));
    },
    onError: (err) => void message.error(errorText(err)),
  });
  const rows = (list.data?.data ?? []) as AdminEndpoint[];
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.endpoints')}</PageTitle>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('endpoints.adminIntro')}
      </Typography.Paragraph>
      {list.error ? <ErrorAlert error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.data && rows.length === 0 ? <Empty description={t('endpoints.noneDisabled')} /> : null}
      {rows.map((e) => (
        <Space key={e.id} orientation="vertical" size={4} style={{ width: '100%' }}>
          <Link to={`/admin/accounts/${e.account_id}`} style={{ wordBreak: 'break-all' }}>
            {e.account_email ?? e.account_id}
          </Link>
          <EndpointCard
            endpoint={e}
            enabling={enable.isPending && enable.variables?.id === e.id}
            onEnable={() => enable.mutateAsync(e)}
          />
        </Space>
      ))}
      <PagerBar pager={pager} nextCursor={list.data?.has_more ? list.data.next_cursor : undefined} />
    </Space>
  );
}
