import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Form,
  Input,
  InputNumber,
  Popconfirm,
  Select,
  Space,
  type TableColumnsType,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { $api, api, keyOf, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ScreenReaderOnly, useCompactRows } from '../../components/CompactRows';
import { ListCard, usePager } from '../../components/ListCard';
import { TaskStatusTag } from '../../components/TaskStatus';
import { useT } from '../../i18n/i18n';
import { formatTime } from '../../lib/format';

type AdminTask = components['schemas']['AdminTask'];
interface Filters {
  status?: 'pending' | 'processing' | 'succeeded' | 'failed';
  model?: string;
  account_id?: string;
  older_than_seconds?: number;
}

/** Tasks still running after this long are shown as stuck. */
export const STUCK_AFTER_SECONDS = 30 * 60;

export function AdminTasksPage() {
  const t = useT();
  const { message } = App.useApp();
  const client = useQueryClient();
  const [form] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const pager = usePager(50);
  const after = pager.cursor;
  const tasks = $api.useQuery('get', '/admin/api/tasks', {
    params: {
      query: {
        limit: pager.limit,
        after,
        ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== '')),
      },
    },
  });
  const retry = useMutation({
    mutationFn: (taskId: string) =>
      unwrap(api.POST('/admin/api/tasks/{taskId}/retry', { params: { path: { taskId } } })),
    onSuccess: (r) => {
      void message.success(t('admin.retried', { id: (r as { id: string }).id }));
      void client.invalidateQueries({ queryKey: keyOf('/admin/api/tasks') });
    },
    onError: (err) => void message.error(err.message),
  });
  // a phone gets two columns (the task, with its status, account and times; and its action), so
  // nothing needs scrolling sideways
  const compact = useCompactRows();
  const statusCell = (task: AdminTask) => (
    <>
      <TaskStatusTag status={task.status} />
      {task.error ? (
        <Typography.Text type="danger" style={{ fontSize: 12, wordBreak: 'break-word' }}>
          {task.error.code}: {task.error.message}
        </Typography.Text>
      ) : null}
    </>
  );
  const accountLink = (id: string) => (
    <Link to={`/admin/accounts/${id}`} style={compact ? { wordBreak: 'break-all' } : undefined}>
      {id}
    </Link>
  );
  const retryButton = (task: AdminTask) =>
    task.status === 'failed' ? (
      <Popconfirm
        title={t('admin.retryConfirm')}
        description={t('admin.retryHint')}
        okText={t('admin.retry')}
        cancelText={t('common.cancel')}
        onConfirm={() => retry.mutate(task.id)}
      >
        <Button
          size="small"
          loading={retry.isPending && retry.variables === task.id}
          aria-label={`${t('admin.retry')} ${task.id}`}
        >
          {t('admin.retry')}
        </Button>
      </Popconfirm>
    ) : null;
  const wideColumns: TableColumnsType<AdminTask> = [
    {
      title: t('videos.task'),
      dataIndex: 'id',
      render: (id: string) => (
        <Typography.Text code style={{ whiteSpace: 'nowrap' }}>
          {id}
        </Typography.Text>
      ),
    },
    { title: t('admin.account'), dataIndex: 'account_id', render: accountLink },
    { title: t('billing.model'), dataIndex: 'model' },
    {
      title: t('videos.status'),
      dataIndex: 'status',
      render: (_s: string, task) => (
        <Space orientation="vertical" size={0}>
          {statusCell(task)}
        </Space>
      ),
    },
    { title: t('videos.created'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
    {
      title: t('admin.upstreamTask'),
      dataIndex: 'upstream_task_id',
      render: (u: string | null) => u ?? '—',
    },
    { title: t('common.actions'), fixed: 'right', render: (_v, task) => retryButton(task) },
  ];
  const compactColumns: TableColumnsType<AdminTask> = [
    {
      title: t('videos.task'),
      dataIndex: 'id',
      render: (id: string, task) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          <Typography.Text code style={{ wordBreak: 'break-all' }}>
            {id}
          </Typography.Text>
          <Space orientation="vertical" size={0}>
            <ScreenReaderOnly>{t('videos.status')}</ScreenReaderOnly>
            {statusCell(task)}
          </Space>
          <Typography.Text style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('admin.account')} </ScreenReaderOnly>
            {accountLink(task.account_id)}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('videos.created')} </ScreenReaderOnly>
            {formatTime(task.created_at)} · {task.model}
          </Typography.Text>
          {task.upstream_task_id ? (
            <Typography.Text type="secondary" style={{ fontSize: 12, wordBreak: 'break-all' }}>
              {t('admin.upstreamTask')}: {task.upstream_task_id}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    { title: t('common.actions'), key: 'actions', width: 84, render: (_v, task) => retryButton(task) },
  ];
  const apply = (f: Filters) => {
    pager.reset();
    setFilters(f);
  };
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.tasks')}
      </Typography.Title>
      <Card>
        <Form<Filters> form={form} layout="inline" onFinish={apply} style={{ rowGap: 12 }}>
          <Form.Item label={t('videos.status')} name="status">
            <Select
              allowClear
              style={{ width: 150 }}
              options={(['pending', 'processing', 'succeeded', 'failed'] as const).map((s) => ({
                value: s,
                label: t(`status.${s}`),
              }))}
            />
          </Form.Item>
          <Form.Item label={t('billing.model')} name="model">
            <Input style={{ width: 220 }} allowClear />
          </Form.Item>
          <Form.Item
            label={t('admin.accountId')}
            name="account_id"
            // an e-mail here would find nothing without a word: say where e-mails are searched
            rules={[{ pattern: /^\s*acct_\w+\s*$/, message: t('admin.accountIdHint') }]}
            normalize={(v: string | undefined) => v?.trim()}
          >
            <Input style={{ width: 220 }} allowClear />
          </Form.Item>
          <Form.Item label={t('admin.olderThan')} name="older_than_seconds">
            <InputNumber min={0} precision={0} style={{ width: 120 }} suffix="s" />
          </Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit">
              {t('admin.filter')}
            </Button>
            <Button
              onClick={() => {
                const stuck: Filters = { status: 'processing', older_than_seconds: STUCK_AFTER_SECONDS };
                form.setFieldsValue(stuck);
                apply(stuck);
              }}
            >
              {t('admin.stuck')}
            </Button>
            <Button
              onClick={() => {
                form.resetFields();
                apply({});
              }}
            >
              {t('admin.clear')}
            </Button>
          </Space>
        </Form>
      </Card>
      <ListCard<AdminTask>
        query={tasks}
        rows={tasks.data?.data}
        scrollX={compact ? undefined : 1000}
        empty={t('videos.empty')}
        paging={{ pager, nextCursor: tasks.data?.has_more ? tasks.data.last_id : undefined }}
        columns={compact ? compactColumns : wideColumns}
      />
    </Space>
  );
}
