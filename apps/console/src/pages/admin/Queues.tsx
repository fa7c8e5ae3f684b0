import { ExportOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, Descriptions, Row, Space, Tag } from 'antd';
import { $api, api, keyOf, unwrap } from '../../api/client';
import { ErrorAlert, useErrorText } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { PageTitle } from '../../components/PageTitle';

interface QueueState {
  name: string;
  paused: boolean;
  counts?: Record<string, number>;
}

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'paused', 'failed', 'completed'];

export function QueuesPage() {
  const t = useT();
  const { message } = App.useApp();
  // a toast speaks the page's language (error boxes keep the API's words for operators)
  const errorText = useErrorText();
  const client = useQueryClient();
  const queues = $api.useQuery('get', '/admin/api/queues', undefined, {
    // the counts' names are BullMQ's, not the document's
    select: (r) => r.data as QueueState[],
    refetchInterval: 5_000,
  });
  const toggle = useMutation({
    mutationFn: ({ name, pause }: { name: string; pause: boolean }) =>
      pause
        ? unwrap(api.POST('/admin/api/queues/{name}/pause', { params: { path: { name } } }))
        : unwrap(api.POST('/admin/api/queues/{name}/resume', { params: { path: { name } } })),
    onSuccess: () => {
      void message.success(t('common.saved'));
      void client.invalidateQueries({ queryKey: keyOf('/admin/api/queues') });
    },
    onError: (err) => void message.error(errorText(err)),
  });
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Space style={{ justifyContent: 'space-between', width: '100%' }} wrap>
        <PageTitle>{t('nav.queues')}</PageTitle>
        {/* a full page load: bull-board is served by the API and reads the session cookie */}
        <Button href="/admin/queues" target="_blank" rel="noopener" icon={<ExportOutlined />}>
          {t('admin.openBullBoard')}
        </Button>
      </Space>
      {queues.error ? <ErrorAlert error={queues.error} onRetry={() => void queues.refetch()} /> : null}
      <Row gutter={[16, 16]}>
        {(queues.data ?? []).map((q) => (
          <Col xs={24} lg={12} key={q.name}>
            <Card
              title={
                <Space>
                  <span>{q.name}</span>
                  <Tag color={q.paused ? 'orange' : 'green'}>
                    {q.paused ? t('admin.paused') : t('admin.running')}
                  </Tag>
                </Space>
              }
              extra={
                <Button
                  danger={!q.paused}
                  loading={toggle.isPending && toggle.variables?.name === q.name}
                  onClick={() => toggle.mutate({ name: q.name, pause: !q.paused })}
                >
                  {q.paused ? t('admin.resume') : t('admin.pause')}
                </Button>
              }
            >
              <Descriptions column={{ xs: 2, md: 4 }} size="small">
                {STATES.map((s) => (
                  <Descriptions.Item key={s} label={t(`queue.${s}` as 'queue.waiting')}>
                    {q.counts?.[s] ?? 0}
                  </Descriptions.Item>
                ))}
              </Descriptions>
            </Card>
          </Col>
        ))}
        {queues.isPending ? (
          <Col span={24}>
            <Card loading />
          </Col>
        ) : null}
      </Row>
    </Space>
  );
}
