import { Button, Popconfirm, Space } from 'antd';
import { useT } from '../../../i18n/i18n';
import type { components } from '../../../api/schema';

type Token = components['schemas']['Token'];

/** A key's rename, disable/enable and delete (confirmed) buttons, named with the key for screen readers. */
export function KeyActions({
  token: k,
  onRename,
  onToggle,
  onDelete,
}: {
  token: Token;
  onRename: () => void;
  onToggle: () => void;
  onDelete: () => Promise<unknown>;
}) {
  const t = useT();
  return (
    <Space wrap size={4}>
      <Button size="small" onClick={onRename} aria-label={`${t('keys.rename')} ${k.name}`}>
        {t('keys.rename')}
      </Button>
      <Button
        size="small"
        onClick={onToggle}
        aria-label={`${k.status === 'active' ? t('keys.disable') : t('keys.enable')} ${k.name}`}
      >
        {k.status === 'active' ? t('keys.disable') : t('keys.enable')}
      </Button>
      <Popconfirm
        title={t('keys.deleteConfirm', { name: k.name, prefix: k.display_prefix })}
        description={t('keys.deleteHint')}
        okText={t('common.delete')}
        cancelText={t('common.cancel')}
        okButtonProps={{ danger: true }}
        onConfirm={onDelete}
      >
        <Button size="small" danger aria-label={`${t('common.delete')} ${k.name}`}>
          {t('common.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
