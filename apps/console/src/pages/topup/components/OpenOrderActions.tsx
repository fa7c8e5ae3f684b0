import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Space } from 'antd';
import { $api, ApiError, keyOf } from '../../../api/client';
import { useErrorText } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import type { TopUp } from '../../../lib/topup';

/**
 * What a customer can do with an order still waiting for payment, on its row of the history: show
 * it again (its QR code, or the way back to the pay page) or cancel it (POST .../cancel), which
 * frees its place among the account's open orders. While the payer is paying, the cancel is refused.
 */
export function OpenOrderActions({ order, onShow }: { order: TopUp; onShow: (id: string) => void }) {
  const t = useT();
  const { message } = App.useApp();
  const errorText = useErrorText();
  const client = useQueryClient();
  const cancel = $api.useMutation('post', '/console/api/topups/{id}/cancel', {
    onSuccess: () => void message.success(t('topup.cancelledToast')),
    onError: (err) =>
      err instanceof ApiError && err.status === 409
        ? void message.warning(t('topup.cancelRefused'))
        : void message.error(errorText(err)),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: keyOf('/console/api/topups') });
      void client.invalidateQueries({ queryKey: keyOf('/console/api/topups/{id}') });
    },
  });
  return (
    <Space size={4} wrap>
      <Button size="small" type="primary" onClick={() => onShow(order.id)}>
        {t('topup.resume')}
      </Button>
      <Button
        size="small"
        loading={cancel.isPending}
        onClick={() => cancel.mutate({ params: { path: { id: order.id } } })}
      >
        {t('topup.cancelOrder')}
      </Button>
    </Space>
  );
}
