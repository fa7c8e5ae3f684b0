import { PlaySquareOutlined } from '@ant-design/icons';
import {
  Button,
  Card,
  Empty,
  Progress,
  Segmented,
  Space,
  Table,
  type TableColumnsType,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { $api } from '../api/client';
import type { components } from '../api/schema';
import { ScreenReaderOnly, useCompactRows } from '../components/CompactRows';
import { ErrorAlert } from '../components/ErrorAlert';
import { TaskStatusTag } from '../components/TaskStatus';
import { useT } from '../i18n/i18n';
import { formatTime } from '../lib/format';

/** The task object, with the fields of stored media (thumbnail, expiry) when the API has them. */
export type VideoTask = components['schemas']['VideoTask'] & {
  thumbnail_url?: string | null;
  expires_at?: number | null;
};

const STATUSES = ['all', 'pending', 'processing', 'succeeded', 'failed'] as const;
type StatusFilter = (typeof STATUSES)[number];
const PAGE = 20;

export function Thumbnail({ task, width = 96 }: { task: VideoTask; width?: number }) {
  const t = useT();
  const style = { width, height: (width * 9) / 16, borderRadius: 4, background: '#f0f2f5' };
  if (task.thumbnail_url) {
    return (
      <img
        src={task.thumbnail_url}
        alt={t('videos.thumbnailOf', { id: task.id })}
        style={{ ...style, objectFit: 'cover' }}
        loading="lazy"
      />
    );
  }
  return (
    <div
      style={{ ...style, display: 'grid', placeItems: 'center', color: '#bfbfbf' }}
      role="img"
      aria-label={t('videos.noThumbnail')}
    >
      <PlaySquareOutlined style={{ fontSize: width / 4 }} />
    </div>
  );
}

export function VideosPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const status = (STATUSES as readonly string[]).includes(params.get('status') ?? '')
    ? (params.get('status') as StatusFilter)
    : 'all';
  // keyset paging: the cursors of the pages before this one
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const videos = $api.useQuery(
    'get',
    '/console/api/videos',
    {
      params: {
        query: { limit: PAGE, ...(status === 'all' ? {} : { status }), ...(after ? { after } : {}) },
      },
    },
    { refetchInterval: 10_000 },
  );
  const rows: VideoTask[] = videos.data?.data ?? [];
  // a phone gets two columns (preview, and the task with its status and time), so a task's
  // status shows without scrolling sideways
  const compact = useCompactRows();

  const statusCell = (task: VideoTask) => (
    <>
      <TaskStatusTag status={task.status} />
      {task.status === 'processing' ? (
        <Progress percent={task.progress} size="small" style={{ width: 100 }} />
      ) : null}
    </>
  );
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
            {task.model}
          </Typography.Text>
        </Space>
      ),
    },
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
            <Space size={4} wrap>
              {statusCell(task)}
            </Space>
          </div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <ScreenReaderOnly>{t('videos.created')} </ScreenReaderOnly>
            {formatTime(task.created_at)} · {task.model}
          </Typography.Text>
        </Space>
      ),
    },
  ];

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.videos')}
      </Typography.Title>
      <Segmented<StatusFilter>
        aria-label={t('videos.statusFilter')}
        value={status}
        onChange={(v) => {
          setCursors([]);
          setParams(v === 'all' ? {} : { status: v });
        }}
        options={STATUSES.map((s) => ({ value: s, label: s === 'all' ? t('videos.all') : t(`status.${s}`) }))}
        style={{ maxWidth: '100%', overflowX: 'auto' }}
      />
      {videos.error ? <ErrorAlert error={videos.error} onRetry={() => void videos.refetch()} /> : null}
      <Card styles={{ body: { padding: 0 } }}>
        <Table<VideoTask>
          rowKey="id"
          loading={videos.isPending}
          dataSource={rows}
          pagination={false}
          scroll={compact ? undefined : { x: 720 }}
          locale={{ emptyText: <Empty description={t('videos.empty')} /> }}
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
