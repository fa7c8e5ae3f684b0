import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Empty, Image, Popconfirm, Space, Typography } from 'antd';
import { $api, keyOf } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatTime } from '../../../lib/format';

/** A file size in the units a person reads (1 KB = 1,024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The account's uploaded images still kept (GET /console/api/playground/uploads), newest first: each
 * with its preview, size and when it was uploaded and goes, a button that puts it in the video form
 * again, and a confirmed delete that ends its link at once (the form lets go of it too).
 */
export function UploadList({
  onUse,
  onDeleted,
}: {
  onUse: (url: string) => void;
  /** an upload was deleted: its URL no longer serves it */
  onDeleted: (url: string) => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const client = useQueryClient();
  const uploads = $api.useQuery('get', '/console/api/playground/uploads', undefined, {
    select: (r) => r.data,
  });
  const remove = $api.useMutation('delete', '/console/api/playground/uploads/{uploadId}', {
    onSuccess: (_r, { params }) => {
      const url = uploads.data?.find((u) => u.id === params.path.uploadId)?.url;
      if (url) onDeleted(url);
      void message.success(t('playground.uploads.deleted'));
      void client.invalidateQueries({ queryKey: keyOf('/console/api/playground/uploads') });
    },
  });
  return (
    <Card title={t('playground.uploads.title')} loading={uploads.isPending} data-testid="playground-uploads">
      <Typography.Paragraph type="secondary">{t('playground.uploads.hint')}</Typography.Paragraph>
      {uploads.error ? <ErrorAlert error={uploads.error} onRetry={() => void uploads.refetch()} /> : null}
      {remove.error ? <ErrorAlert error={remove.error} style={{ marginBottom: 12 }} /> : null}
      {uploads.data && uploads.data.length === 0 ? (
        <Empty description={t('playground.uploads.none')} />
      ) : null}
      <ul
        style={{
          listStyle: 'none',
          margin: 0,
          padding: 0,
          display: 'grid',
          gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 300px), 1fr))',
          gap: 12,
        }}
      >
        {(uploads.data ?? []).map((u) => {
          const name = t('playground.uploads.item', { time: formatTime(u.created_at) });
          return (
            <li
              key={u.id}
              data-testid="playground-upload"
              style={{ padding: 12, border: '1px solid rgba(5, 5, 5, 0.06)', borderRadius: 8 }}
            >
              <Space align="start" size="middle" style={{ width: '100%' }}>
                <Image
                  src={u.url}
                  alt={name}
                  width={64}
                  height={64}
                  style={{ objectFit: 'cover', borderRadius: 6 }}
                  fallback="data:image/gif;base64,R0lGODlhAQABAAAAACw="
                />
                <Space orientation="vertical" size={4} style={{ minWidth: 0 }}>
                  <Typography.Text>{formatTime(u.created_at)}</Typography.Text>
                  <Typography.Text type="secondary">
                    {formatBytes(u.bytes)} ·{' '}
                    {t('playground.uploads.until', { time: formatTime(u.expires_at) })}
                  </Typography.Text>
                  <Space wrap size={4}>
                    <Button
                      size="small"
                      onClick={() => onUse(u.url)}
                      aria-label={`${t('playground.uploads.use')}: ${name}`}
                    >
                      {t('playground.uploads.use')}
                    </Button>
                    <Popconfirm
                      title={t('playground.uploads.deleteConfirm')}
                      description={t('playground.uploads.deleteHint')}
                      okText={t('common.delete')}
                      cancelText={t('common.cancel')}
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync({ params: { path: { uploadId: u.id } } }).catch(() => undefined)
                      }
                    >
                      <Button size="small" danger aria-label={`${t('common.delete')}: ${name}`}>
                        {t('common.delete')}
                      </Button>
                    </Popconfirm>
                  </Space>
                </Space>
              </Space>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
