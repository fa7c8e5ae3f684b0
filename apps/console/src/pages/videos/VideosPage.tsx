import { keepPreviousData } from '@tanstack/react-query';
import { Button, Card, Empty, Segmented, Space, Table, type TableColumnsType, Typography } from 'antd';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { $api } from '../../api/client';
import { ScreenReaderOnly, useCompactRows } from '../../components/CompactRows';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { formatMicroUsd, formatTime } from '../../lib/format';
import { useLiveTasks } from '../../lib/use-live-tasks';
import { LiveBadge } from './components/LiveBadge';
import { TaskProgress } from './components/TaskProgress';
import { SEARCH_FIELDS, TaskSearch, type TaskSearchValues } from './components/TaskSearch';
import { Thumbnail } from './components/Thumbnail';
import { costOf, type VideoTask } from './types';
import { PageTitle } from '../../components/PageTitle';

const STATUSES = ['all', 'pending', 'processing', 'succeeded', 'failed'] as const;
type StatusFilter = (typeof STATUSES)[number];
const PAGE = 20;

/** The account's video tasks, live (a change shows within a second), searchable, newest first. */
export function VideosPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const status = (STATUSES as readonly string[]).includes(params.get('status') ?? '')
    ? (params.get('status') as StatusFilter)
    : 'all';
  const search: TaskSearchValues = Object.fromEntries(
    SEARCH_FIELDS.flatMap((f) => (params.get(f) ? [[f, params.get(f) as string]] : [])),
  );
  const setFilters = (next: { status?: StatusFilter } & TaskSearchValues) => {
    setCursors([]);
    const merged = { status, ...search, ...next };
    setParams(
      Object.fromEntries(
        Object.entries(merged).filter(([k, v]) => v && !(k === 'status' && v === 'all')) as Array<
          [string, string]
        >,
      ),
    );
  };
  // keyset paging: the cursors of the pages before this one
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const live = useLiveTasks();
  const videos = $api.useQuery(
    'get',
    '/console/api/videos',
    {
      params: {
        query: {
          limit: PAGE,
          ...(status === 'all' ? {} : { status }),
          ...search,
          ...(after ? { after } : {}),
        },
      },
    },
    {
      placeholderData: keepPreviousData,
      // the live stream refreshes the list; polled only while it is down
      refetchInterval: live ? false : 10_000,
    },
  );
  const rows = videos.data?.data ?? [];
  // a phone gets two columns (preview, and the task with its status and time), so a task's
  // status shows without scrolling sideways
  const compact = useCompactRows();

  const taskLink = (task: VideoTask) => (
    <Link to={`/console/videos/${task.id}`} style={compact ? { wordBreak: 'break-all' } : undefined}>
      {task.id}
    </Link>
  );
  // the prompt names the task for a person: one line, whole on hover
  const promptLine = (task: VideoTask) =>
    task.prompt ? (
      <Typography.Text ellipsis={{ tooltip: task.prompt }} style={{ fontSize: 13, maxWidth: '100%' }}>
        {task.prompt}
      </Typography.Text>
    ) : null;
  const origin = (task: VideoTask) =>
    [task.model, task.api_key ? task.api_key.name : null].filter(Boolean).join(' · ');
  const wideColumns: TableColumnsType<VideoTask> = [
    { title: t('videos.preview'), key: 'thumb', width: 120, render: (_v, task) => <Thumbnail task={task} /> },
    {
      title: t('videos.task'),
      dataIndex: 'id',
      render: (_id: string, task) => (
        <Space orientation="vertical" size={0} style={{ maxWidth: 480 }}>
          {taskLink(task)}
          {promptLine(task)}
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {origin(task)}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('videos.status'),
      dataIndex: 'status',
      render: (_s: string, task) => <TaskProgress task={task} />,
    },
    {
      title: t('videos.cost'),
      key: 'cost',
      align: 'right',
      render: (_v, task) => formatMicroUsd(costOf(task)),
    },
    { title: t('videos.created'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
  ];
  const compactColumns: TableColumnsType<VideoTask> = [
    {
      title: t('videos.preview'),
      key: 'thumb',
      width: 88,
      render: (_v, task) => <Thumbnail task={task} width={64} />,
    },
    {
      title: t('videos.task'),
      dataIndex: 'id',
      render: (_id: string, task) => (
        <Space orientation="vertical" size={2}>
          {taskLink(task)}
          {promptLine(task)}
          <div>
            {/* the column headers of the wide layout, for screen readers */}
            <ScreenReaderOnly>{t('videos.status')}</ScreenReaderOnly>
            <TaskProgress task={task} width={100} />
          </div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('videos.created')} </ScreenReaderOnly>
            {formatTime(task.created_at)} · {origin(task)} · {formatMicroUsd(costOf(task))}
          </Typography.Text>
        </Space>
      ),
    },
  ];
  const searching = Object.keys(search).length > 0;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Space align="center" size="middle" wrap>
        <PageTitle>{t('nav.videos')}</PageTitle>
        <LiveBadge live={live} />
      </Space>
      <Segmented<StatusFilter>
        aria-label={t('videos.statusFilter')}
        value={status}
        onChange={(v) => setFilters({ status: v })}
        options={STATUSES.map((s) => ({ value: s, label: s === 'all' ? t('videos.all') : t(`status.${s}`) }))}
        style={{ maxWidth: '100%', overflowX: 'auto' }}
      />
      <TaskSearch
        compact={compact}
        values={search}
        onSearch={(v) => setFilters(Object.fromEntries(SEARCH_FIELDS.map((f) => [f, v[f]])))}
      />
      {videos.error ? <ErrorAlert error={videos.error} onRetry={() => void videos.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<VideoTask>
          rowKey="id"
          loading={videos.isPending}
          dataSource={rows}
          pagination={false}
          scroll={compact ? undefined : { x: 820 }}
          locale={{ emptyText: <Empty description={searching ? t('videos.noMatch') : t('videos.empty')} /> }}
          columns={compact ? compactColumns : wideColumns}
        />
      </Card>
      <Space>
        <Button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          {t('common.previous')}
        </Button>
        <Button
          disabled={!videos.data?.has_more || !videos.data?.last_id}
          onClick={() => videos.data?.last_id && setCursors((c) => [...c, videos.data.last_id as string])}
        >
          {t('common.next')}
        </Button>
      </Space>
    </Space>
  );
}
