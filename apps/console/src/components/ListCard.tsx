import {
  Button,
  Card,
  Empty,
  Select,
  Space,
  Table,
  type TableColumnsType,
  type TableProps,
  Typography,
} from 'antd';
import { type ReactNode, useState } from 'react';
import { useT } from '../i18n/i18n';
import { ErrorAlert } from './ErrorAlert';

/** Cursor paging: the cursors of the pages before the current one, and the page size. */
export function usePager(initialLimit = 20) {
  const [cursors, setCursors] = useState<string[]>([]);
  const [limit, setLimit] = useState(initialLimit);
  return {
    /** the cursor the current page starts after (undefined on the first page) */
    cursor: cursors[cursors.length - 1],
    limit,
    page: cursors.length + 1,
    reset: () => setCursors([]),
    next: (cursor: string | null | undefined) => cursor && setCursors((c) => [...c, cursor]),
    previous: () => setCursors((c) => c.slice(0, -1)),
    setLimit: (n: number) => {
      setCursors([]);
      setLimit(n);
    },
  };
}
export type Pager = ReturnType<typeof usePager>;

/** Previous / page number / next, and the page size, under a list. */
export function PagerBar({ pager, nextCursor }: { pager: Pager; nextCursor: string | null | undefined }) {
  const t = useT();
  return (
    <Space wrap style={{ padding: 12 }}>
      <Button disabled={pager.page === 1} onClick={pager.previous}>
        {t('common.previous')}
      </Button>
      <Typography.Text aria-live="polite">{t('common.page', { page: pager.page })}</Typography.Text>
      <Button disabled={!nextCursor} onClick={() => pager.next(nextCursor)}>
        {t('common.next')}
      </Button>
      <Select
        aria-label={t('common.pageSize')}
        value={pager.limit}
        onChange={pager.setLimit}
        options={[20, 50, 100].map((n) => ({ value: n, label: t('common.perPage', { n }) }))}
      />
    </Space>
  );
}

/**
 * One page of a list in a card: why it could not be read (with a retry), a compact table (`rowKey`
 * id, no client-side paging) with its empty text, and the pager bar under it when the list pages.
 */
export function ListCard<R extends { id: string }>(props: {
  title?: ReactNode;
  /** the list query: its error and refetch, and whether its first answer is pending */
  query: { error: unknown; isPending: boolean; refetch: () => unknown };
  rows: R[] | undefined;
  columns: TableColumnsType<R>;
  /** the table's own width, scrolled sideways inside the card; none: it fits the card */
  scrollX: number | undefined;
  empty: ReactNode;
  expandable?: TableProps<R>['expandable'];
  /** the id of a row to mark (the one a link was opened for) */
  highlight?: string | null;
  /** the pager, and the cursor of the next page (none on the last page) */
  paging?: { pager: Pager; nextCursor: string | null | undefined };
}) {
  return (
    <Card title={props.title} styles={{ body: { padding: 0 } }}>
      {props.query.error ? (
        <ErrorAlert
          error={props.query.error}
          onRetry={() => void props.query.refetch()}
          style={{ margin: 12 }}
        />
      ) : null}
      <Table<R>
        rowKey="id"
        size="small"
        loading={props.query.isPending}
        dataSource={props.rows ?? []}
        pagination={false}
        scroll={props.scrollX === undefined ? undefined : { x: props.scrollX }}
        locale={{ emptyText: <Empty description={props.empty} /> }}
        expandable={props.expandable}
        rowClassName={(r) => (props.highlight && r.id === props.highlight ? 'mg-row-highlight' : '')}
        columns={props.columns}
      />
      {props.paging ? <PagerBar pager={props.paging.pager} nextCursor={props.paging.nextCursor} /> : null}
    </Card>
  );
}
