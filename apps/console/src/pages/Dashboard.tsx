import { useQueries } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Col,
  Empty,
  List,
  Row,
  Skeleton,
  Space,
  Statistic,
  Table,
  Tag,
  Typography,
} from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { Link } from 'react-router';
import { $api } from '../api/client';
import { ErrorAlert } from '../components/ErrorAlert';
import { useT } from '../i18n/i18n';
import { formatTime, formatUsd } from '../lib/format';
import { spendSeries } from '../lib/spend';
import { useLiveTasks } from '../lib/use-live-tasks';
import type { VideoTask } from './videos/types';

const SpendChart = lazy(() => import('../components/SpendChart'));
const DAYS = 30;
const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The reason of the grant a new account gets at sign-up (packages/shared/src/accounts/registration.ts). */
const TEST_CREDIT_REASON = 'test credit for a new account';

/** The account's ledger entries of one kind, the newest first (one page). */
function useLedger(kind: 'grant' | 'topup', limit: number) {
  return $api.useQuery(
    'get',
    '/console/api/ledger',
    { params: { query: { kind, limit } } },
    { select: (r) => r.data },
  );
}

export function DashboardPage() {
  const t = useT();
  const balance = $api.useQuery('get', '/console/api/balance', undefined, { refetchInterval: 30_000 });
  const topups = useLedger('topup', 1);
  const grants = useLedger('grant', 20);
  const summary = $api.useQuery('get', '/console/api/usage/summary', {
    params: { query: { days: DAYS, tz: timeZone() } },
  });
  // the tasks still running: the processing ones, then the pending ones; the live stream
  // refreshes them, polled only while it is down
  const live = useLiveTasks();
  const running = useQueries({
    queries: (['processing', 'pending'] as const).map((status) =>
      $api.queryOptions(
        'get',
        '/console/api/videos',
        { params: { query: { status, limit: 20 } } },
        { refetchInterval: live ? false : 5_000 },
      ),
    ),
    combine: (results) => ({
      data: results.every((r) => r.data)
        ? results.flatMap((r): VideoTask[] => r.data?.data ?? [])
        : undefined,
      isPending: results.some((r) => r.isPending),
      error: results.find((r) => r.error)?.error ?? null,
      refetch: () => Promise.all(results.map((r) => r.refetch())),
    }),
  });
  const series = useMemo(
    () => (summary.data ? spendSeries(summary.data.data, DAYS, new Date(), t('dashboard.otherModel')) : null),
    [summary.data, t],
  );
  // the test credit's notice: for an account that got the sign-up credit and has paid nothing since
  // (not an account an operator created with a balance, nor an operator's own)
  const testCredit = grants.data?.find((g) => g.reason === TEST_CREDIT_REASON);
  const onTestCredit = testCredit !== undefined && topups.data?.length === 0;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {t('nav.dashboard')}
      </Typography.Title>
      {onTestCredit ? (
        <Alert
          type="info"
          showIcon
          title={t('dashboard.testCreditTitle')}
          description={t('dashboard.testCredit', { amount: formatUsd(testCredit?.amount_usd) })}
          action={
            <Link to="/console/quickstart">
              <Button type="primary">{t('dashboard.firstCall')}</Button>
            </Link>
          }
        />
      ) : null}
      <Row gutter={[16, 16]}>
        <Col xs={24} md={8}>
          <Card>
            {balance.error ? (
              <ErrorAlert error={balance.error} onRetry={() => void balance.refetch()} />
            ) : (
              <Statistic
                title={t('dashboard.balance')}
                loading={balance.isPending}
                value={balance.data ? formatUsd(balance.data.balance_usd) : ''}
              />
            )}
            <Link to="/console/topup">
              <Button type="primary" style={{ marginTop: 12 }}>
                {t('nav.topup')}
              </Button>
            </Link>
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            <Statistic
              title={t('dashboard.spent30')}
              loading={summary.isPending}
              value={series ? formatUsd(series.total) : ''}
            />
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            <Statistic
              title={t('dashboard.running')}
              loading={running.isPending}
              value={running.data?.length ?? 0}
            />
          </Card>
        </Col>
      </Row>
      <Card title={t('dashboard.spendChart')}>
        {summary.error ? <ErrorAlert error={summary.error} onRetry={() => void summary.refetch()} /> : null}
        {summary.isPending ? <Skeleton active /> : null}
        {series && series.series.length === 0 ? <Empty description={t('dashboard.noSpend')} /> : null}
        {series && series.series.length > 0 ? (
          <>
            <Suspense fallback={<Skeleton active />}>
              <SpendChart data={series} label={t('dashboard.spendChart')} />
            </Suspense>
            <Table
              size="small"
              rowKey="model"
              pagination={false}
              style={{ marginTop: 16 }}
              dataSource={series.series}
              columns={[
                { title: t('billing.model'), dataIndex: 'model' },
                { title: t('dashboard.calls'), dataIndex: 'calls', align: 'right' },
                {
                  title: t('dashboard.spent'),
                  dataIndex: 'total',
                  align: 'right',
                  render: (v: number) => formatUsd(v),
                },
              ]}
            />
          </>
        ) : null}
      </Card>
      <Card title={t('dashboard.runningNow')}>
        {running.error ? <ErrorAlert error={running.error} onRetry={() => void running.refetch()} /> : null}
        <List
          loading={running.isPending}
          dataSource={running.data ?? []}
          locale={{ emptyText: <Empty description={t('dashboard.noRunning')} /> }}
          renderItem={(task) => (
            <List.Item
              extra={
                <Tag color={task.status === 'processing' ? 'processing' : 'default'}>
                  {t(`status.${task.status}`)}
                </Tag>
              }
            >
              <List.Item.Meta
                title={<Link to={`/console/videos/${task.id}`}>{task.id}</Link>}
                description={`${task.model} · ${formatTime(task.created_at)} · ${task.progress}%`}
              />
            </List.Item>
          )}
        />
      </Card>
    </Space>
  );
}
