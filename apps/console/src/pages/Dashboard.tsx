import { useQueries } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Empty, List, Row, Skeleton, Space, Statistic, Table, Tag } from 'antd';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { $api } from '../api/client';
import { useCompactRows } from '../components/CompactRows';
import { ErrorAlert } from '../components/ErrorAlert';
import { useT } from '../i18n/i18n';
import { formatMicroUsd, formatTime, formatUsd } from '../lib/format';
import { spendSeries } from '../lib/spend';
import { useLiveTasks } from '../lib/use-live-tasks';
import type { VideoTask } from './videos/types';
import { PageTitle } from '../components/PageTitle';
import SpendChart from '../components/SpendChart';

const DAYS = 30;
const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

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
  const testCredit = grants.data?.find((g) => g.details?.cause === 'signup_credit');
  const onTestCredit = testCredit !== undefined && topups.data?.length === 0;
  const compact = useCompactRows();
  const firstCall = (
    <Link to="/console/quickstart">
      <Button type="primary">{t('dashboard.firstCall')}</Button>
    </Link>
  );

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.dashboard')}</PageTitle>
      {onTestCredit ? (
        <Alert
          type="info"
          showIcon
          title={t('dashboard.testCreditTitle')}
          description={
            <>
              {t('dashboard.testCredit', { amount: formatMicroUsd(testCredit?.amount_micro_usd) })}
              {compact ? <div style={{ marginTop: 12 }}>{firstCall}</div> : null}
            </>
          }
          // on a phone the button goes under the text, which keeps the alert's width
          action={compact ? undefined : firstCall}
        />
      ) : null}
      <Row gutter={[16, 16]}>
        <Col xs={24} md={8}>
          <Card>
            {balance.error ? (
              <ErrorAlert
                error={balance.error}
                title={t('dashboard.figureFailed', { figure: t('dashboard.balance') })}
                onRetry={() => void balance.refetch()}
              />
            ) : (
              <Statistic
                title={t('dashboard.balance')}
                loading={balance.isPending}
                value={balance.data ? formatMicroUsd(balance.data.balance_micro_usd) : ''}
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
            {/* a figure that could not be read says so: never a 0 that looks like a fact */}
            {summary.error ? (
              <ErrorAlert
                error={summary.error}
                title={t('dashboard.figureFailed', { figure: t('dashboard.spent30') })}
                onRetry={() => void summary.refetch()}
              />
            ) : (
              <Statistic
                title={t('dashboard.spent30')}
                loading={summary.isPending}
                value={series ? formatUsd(series.total) : ''}
              />
            )}
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            {running.error ? (
              <ErrorAlert
                error={running.error}
                title={t('dashboard.figureFailed', { figure: t('dashboard.running') })}
                onRetry={() => void running.refetch()}
              />
            ) : (
              <Statistic
                title={t('dashboard.running')}
                loading={running.isPending}
                value={running.data ? running.data.length : ''}
              />
            )}
          </Card>
        </Col>
      </Row>
      <Card title={t('dashboard.spendChart')}>
        {summary.error ? <ErrorAlert error={summary.error} onRetry={() => void summary.refetch()} /> : null}
        {summary.isPending ? <Skeleton active /> : null}
        {series && series.series.length === 0 ? <Empty description={t('dashboard.noSpend')} /> : null}
        {series && series.series.length > 0 ? (
          <>
            <SpendChart data={series} label={t('dashboard.spendChart')} />
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
        {/* no "nothing running" that it does not know */}
        <List
          loading={running.isPending}
          dataSource={running.data ?? []}
          locale={{
            emptyText: running.error ? <span /> : <Empty description={t('dashboard.noRunning')} />,
          }}
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
