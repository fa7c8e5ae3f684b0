import { Space, type TableColumnsType, Typography } from 'antd';
import { Link } from 'react-router';
import type { components } from '../../../../api/schema';
import { ScreenReaderOnly, useCompactRows } from '../../../../components/CompactRows';
import { ListCard, type Pager } from '../../../../components/ListCard';
import { TaskStatusTag } from '../../../../components/TaskStatus';
import { useT } from '../../../../i18n/i18n';
import { formatTime } from '../../../../lib/format';
import { RetryButton, useRetryTask } from './RetryButton';

export type AdminTask = components['schemas']['AdminTask'];

/** A task's id, linked to its page. */
export function TaskLink({ id, wrap }: { id: string; wrap?: boolean }) {
  return (
    <Link to={`/admin/tasks/${id}`}>
      <Typography.Text code style={wrap ? { wordBreak: 'break-all' } : { whiteSpace: 'nowrap' }}>
        {id}
      </Typography.Text>
    </Link>
  );
}

/** An account named by its e-mail (its id when the account is gone), linked to its page. */
export function AccountLink({ id, email }: { id: string; email: string | null | undefined }) {
  return (
    <Link to={`/admin/accounts/${id}`} style={{ wordBreak: 'break-all' }}>
      {email ?? id}
    </Link>
  );
}

/**
 * One page of tasks as operators read them: each linked to its page, its account by e-mail
 * (`showAccount`: left out on an account's own page), and a retry for a failed one. A phone gets
 * two columns (the task with everything about it, and its action), so nothing scrolls sideways.
 */
export function TaskTable({
  query,
  pager,
  showAccount = true,
  title,
}: {
  query: {
    data?: { data: AdminTask[]; has_more?: boolean; last_id?: string | null };
    error: unknown;
    isPending: boolean;
    refetch: () => unknown;
  };
  pager: Pager;
  showAccount?: boolean;
  title?: string;
}) {
  const t = useT();
  const compact = useCompactRows();
  const retry = useRetryTask();
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
  const wide: TableColumnsType<AdminTask> = [
    // wide enough for a whole id (kept on one line): the fixed layout would lay it over the next column
    { title: t('videos.task'), dataIndex: 'id', width: 300, render: (id: string) => <TaskLink id={id} /> },
    ...(showAccount
      ? [
          {
            title: t('admin.account'),
            dataIndex: 'account_id',
            render: (id: string, task: AdminTask) => <AccountLink id={id} email={task.account_email} />,
          },
        ]
      : []),
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
    {
      title: t('common.actions'),
      fixed: 'right',
      render: (_v, task) => <RetryButton task={task} retry={retry} />,
    },
  ];
  const narrow: TableColumnsType<AdminTask> = [
    {
      title: t('videos.task'),
      dataIndex: 'id',
      render: (id: string, task) => (
        <Space orientation="vertical" size={2} style={{ minWidth: 0 }}>
          <TaskLink id={id} wrap />
          <Space orientation="vertical" size={0}>
            <ScreenReaderOnly>{t('videos.status')}</ScreenReaderOnly>
            {statusCell(task)}
          </Space>
          {showAccount ? (
            <Typography.Text style={{ fontSize: 12 }}>
              <ScreenReaderOnly>{t('admin.account')} </ScreenReaderOnly>
              <AccountLink id={task.account_id} email={task.account_email} />
            </Typography.Text>
          ) : null}
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
    {
      title: t('common.actions'),
      key: 'actions',
      width: 84,
      render: (_v, task) => <RetryButton task={task} retry={retry} />,
    },
  ];
  return (
    <ListCard<AdminTask>
      title={title}
      query={query}
      rows={query.data?.data}
      scrollX={compact ? undefined : 1100}
      empty={t('videos.empty')}
      paging={{ pager, nextCursor: query.data?.has_more ? query.data.last_id : undefined }}
      columns={compact ? narrow : wide}
    />
  );
}
