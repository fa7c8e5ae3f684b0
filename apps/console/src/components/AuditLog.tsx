import { Space, type TableColumnsType, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { $api } from '../api/client';
import type { components } from '../api/schema';
import type { MessageKey } from '../i18n/en';
import { useT } from '../i18n/i18n';
import { formatTime, formatUsd } from '../lib/format';
import { ScreenReaderOnly, useCompactRows } from './CompactRows';
import { ListCard, usePager } from './ListCard';

export type AuditEntry = components['schemas']['AuditEntry'];

const ACTION_COLORS: Partial<Record<AuditEntry['action'], string>> = {
  'account.disable': 'red',
  'account.enable': 'green',
  'account.topup': 'gold',
  'account.adjustment': 'gold',
  'task.retry': 'blue',
  'queue.pause': 'orange',
  'queue.resume': 'green',
  'webhook_endpoint.enable': 'cyan',
};

/** A changed value as the operator reads it: dollars for `*_usd`, "default" for a cleared limit. */
function showValue(field: string, value: unknown, t: ReturnType<typeof useT>): string {
  if (value === null || value === undefined)
    return field.endsWith('_limit') || field.startsWith('max_') ? t('admin.default') : '—';
  if (field.endsWith('_usd') && typeof value === 'number') return formatUsd(value);
  if (typeof value === 'boolean') return value ? t('audit.yes') : t('audit.no');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** What changed: each value that differs, before → after; values that only the after has, as facts. */
export function AuditChange({ entry }: { entry: Pick<AuditEntry, 'before' | 'after'> }) {
  const t = useT();
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const lines: ReactNode[] = [];
  for (const f of fields) {
    const label = <Typography.Text type="secondary">{f}</Typography.Text>;
    if (f in before && f in after) {
      if (JSON.stringify(before[f]) === JSON.stringify(after[f])) continue;
      lines.push(
        <span key={f}>
          {label} {showValue(f, before[f], t)} →{' '}
          <Typography.Text strong>{showValue(f, after[f], t)}</Typography.Text>
        </span>,
      );
    } else {
      lines.push(
        <span key={f}>
          {label} {showValue(f, f in after ? after[f] : before[f], t)}
        </span>,
      );
    }
  }
  return (
    <Space orientation="vertical" size={0} style={{ wordBreak: 'break-word' }}>
      {lines.length ? lines : <Typography.Text type="secondary">{t('audit.noChange')}</Typography.Text>}
    </Space>
  );
}

/** The target of an action, linked where the console has a page for it; an account by its e-mail. */
function Target({ entry }: { entry: AuditEntry }) {
  const style = { wordBreak: 'break-all' as const };
  const accountId = entry.account_id ?? (entry.target_type === 'account' ? entry.target_id : null);
  const account = accountId ? (
    <Link to={`/admin/accounts/${accountId}`} style={style}>
      {entry.account_email ?? accountId}
    </Link>
  ) : null;
  if (entry.target_type === 'account') return account;
  if (entry.target_type === 'task')
    return (
      <Space orientation="vertical" size={0}>
        <Link to={`/admin/tasks/${entry.target_id}`} style={style}>
          <Typography.Text code style={style}>
            {entry.target_id}
          </Typography.Text>
        </Link>
        {account}
      </Space>
    );
  return (
    <Space orientation="vertical" size={0}>
      <Typography.Text style={style}>{entry.target_id}</Typography.Text>
      {account}
    </Space>
  );
}

/**
 * Operators' actions, newest first, paged: of one account (`accountId`, for the account's page) or
 * of every account. Read-only: the audit log has no way to change or remove an entry.
 */
export function AuditLog(props: { accountId?: string; title?: ReactNode }) {
  const t = useT();
  const pager = usePager();
  const compact = useCompactRows();
  const before = pager.cursor;
  const log = $api.useQuery('get', '/admin/api/audit-log', {
    params: { query: { account_id: props.accountId, before, limit: pager.limit } },
  });
  const action = (a: AuditEntry['action']) => (
    <Tag color={ACTION_COLORS[a]}>{t(`audit.action.${a}` as MessageKey)}</Tag>
  );
  const wide: TableColumnsType<AuditEntry> = [
    { title: t('audit.when'), dataIndex: 'at', width: 170, render: (s: number) => formatTime(s) },
    {
      title: t('audit.operator'),
      dataIndex: 'operator',
      render: (o: AuditEntry['operator']) => <span style={{ wordBreak: 'break-all' }}>{o.email}</span>,
    },
    { title: t('audit.action'), dataIndex: 'action', render: action },
    ...(props.accountId
      ? []
      : [
          {
            title: t('audit.target'),
            key: 'target',
            render: (_: unknown, e: AuditEntry) => <Target entry={e} />,
          },
        ]),
    {
      title: t('audit.change'),
      key: 'change',
      render: (_: unknown, e: AuditEntry) => <AuditChange entry={e} />,
    },
    {
      title: t('audit.reason'),
      dataIndex: 'reason',
      render: (r: string | null) => r ?? <Typography.Text type="secondary">—</Typography.Text>,
    },
  ];
  const narrow: TableColumnsType<AuditEntry> = [
    {
      title: t('audit.action'),
      key: 'entry',
      render: (_: unknown, e: AuditEntry) => (
        <Space orientation="vertical" size={2} style={{ width: '100%' }}>
          <Space wrap size={4}>
            {action(e.action)}
            <Typography.Text type="secondary">
              <ScreenReaderOnly>{t('audit.when')}: </ScreenReaderOnly>
              {formatTime(e.at)}
            </Typography.Text>
          </Space>
          {props.accountId ? null : (
            <span>
              <ScreenReaderOnly>{t('audit.target')}: </ScreenReaderOnly>
              <Target entry={e} />
            </span>
          )}
          <AuditChange entry={e} />
          {e.reason ? <Typography.Text italic>{e.reason}</Typography.Text> : null}
          <Typography.Text type="secondary" style={{ wordBreak: 'break-all' }}>
            <ScreenReaderOnly>{t('audit.operator')}: </ScreenReaderOnly>
            {e.operator.email}
          </Typography.Text>
        </Space>
      ),
    },
  ];
  return (
    <ListCard<AuditEntry>
      title={props.title ?? t('audit.title')}
      query={log}
      rows={log.data?.data}
      scrollX={compact ? undefined : 900}
      empty={t('audit.empty')}
      paging={{ pager, nextCursor: log.data?.has_more ? log.data.next_cursor : undefined }}
      columns={compact ? narrow : wide}
    />
  );
}
