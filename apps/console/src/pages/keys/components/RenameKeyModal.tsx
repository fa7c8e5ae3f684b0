import { Input, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useT } from '../../../i18n/i18n';
import type { components } from '../../../api/schema';

type Token = components['schemas']['Token'];

/** A new name for a key (`token` null: closed). */
export function RenameKeyModal({
  token,
  pending,
  onRename,
  onClose,
}: {
  token: Token | null;
  pending: boolean;
  onRename: (name: string) => void;
  onClose: () => void;
}) {
  const t = useT();
  const [name, setName] = useState('');
  useEffect(() => setName(token?.name ?? ''), [token]);
  return (
    <Modal
      title={t('keys.rename')}
      open={token !== null}
      onCancel={onClose}
      onOk={() => onRename(name)}
      okButtonProps={{ loading: pending, disabled: !name.trim() }}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
    >
      <label htmlFor="rename-input">{t('keys.name')}</label>
      <Input
        id="rename-input"
        value={name}
        maxLength={64}
        onChange={(e) => setName(e.target.value)}
        onPressEnter={() => name.trim() && onRename(name)}
      />
    </Modal>
  );
}
