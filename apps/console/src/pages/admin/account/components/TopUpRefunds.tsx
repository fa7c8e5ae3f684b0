import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Form, Input, InputNumber, Modal, Space, Table, Tag, Typography } from 'antd';
import { $api, api, keyOf, unwrap } from '../../../../api/client';
import type { components } from '../../../../api/schema';
import { ErrorAlert } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';
import { formatCny, formatFen, formatTime, formatUsd } from '../../../../lib/format';

type TopUp = components['schemas']['TopUp'];
type Refund = components['schemas']['TopUpRefund'];

interface RefundValues {
  amount_cny: number;
  reason: string;
}

const fen = (cny: number) => Math.round(cny * 100);

const STATUS_COLORS: Record<Refund['status'], string> = {
  pending: 'processing',
  succeeded: 'success',
  failed: 'error',
  held: 'warning',
};

/**
 * A top-up's refunds (state, what each took back, what the balance could not cover, the provider's
 * reason for a refusal) and, for a paid top-up with something left, the refund form: an amount in
 * CNY (all that is left by default) and a reason, asked again before it is sent.
 */
export function TopUpRefunds({ topUp, open, onClose }: { topUp: TopUp; open: boolean; onClose: () => void }) {
  const t = useT();
  const { modal, message } = App.useApp();
  const client = useQueryClient();
  const [form] = Form.useForm<RefundValues>();
  const path = { params: { path: { id: topUp.id } } };
  const refunds = $api.useQuery('get', '/admin/api/topups/{id}/refunds', path, { enabled: open });
  const rows = refunds.data?.data ?? [];
  // what is left: paid minus refunds done, under way or held (as the API counts it)
  const leftFen =
    fen(topUp.amount_cny) -
    rows
      .filter((r) => r.status !== 'failed')
      .reduce((s, r) => s + fen(r.amount_cny), 0);
  const refundable =
    (topUp.status === 'credited' || topUp.status === 'paid') && leftFen > 0 && refunds.isSuccess;
  const refund = useMutation({
    mutationFn: (v: RefundValues) =>
      unwrap(
        api.POST('/admin/api/topups/{id}/refund', {
          ...path,
          body: { amount_cny: v.amount_cny, reason: v.reason.trim() },
        }),
      ),
    onSuccess: (r) => {
      form.resetFields();
      for (const route of [
        '/admin/api/topups/{id}/refunds',
        '/admin/api/accounts/{id}/topups',
        '/admin/api/accounts/{id}/ledger',
        '/admin/api/accounts/{id}',
        '/admin/api/audit-log',
      ] as const)
        void client.invalidateQueries({ queryKey: keyOf(route) });
      void message.success(r.status === 'succeeded' ? t('refund.done') : t('refund.underWay'));
    },
  });
  return (
    <Modal
      open={open}
      onCancel={onClose}
      footer={null}
      title={t('refund.title', { id: topUp.id })}
      width={760}
      destroyOnHidden
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Text>
          {t('refund.paid', {
            amount: formatCny(topUp.amount_cny),
            provider: t(`topup.provider.${topUp.provider}`),
            credit: formatUsd(topUp.credit_usd + topUp.bonus_usd),
          })}
        </Typography.Text>
        {refunds.error ? <ErrorAlert error={refunds.error} onRetry={() => void refunds.refetch()} /> : null}
        <Table<Refund>
          size="small"
          rowKey="id"
          loading={refunds.isPending}
          dataSource={rows}
          pagination={false}
          scroll={{ x: 640 }}
          locale={{ emptyText: t('refund.none') }}
          columns={[
            { title: t('billing.time'), dataIndex: 'created_at', render: (s: number) => formatTime(s) },
            {
              title: t('videos.status'),
              dataIndex: 'status',
              render: (s: Refund['status'], r) => (
                <Space orientation="vertical" size={0}>
                  <Tag color={STATUS_COLORS[s]}>{t(`refund.status.${s}`)}</Tag>
                  {r.failure ? <Typography.Text type="danger">{r.failure}</Typography.Text> : null}
                </Space>
              ),
            },
            {
              title: t('topup.amount'),
              dataIndex: 'amount_cny',
              align: 'right',
              render: (v: number) => formatCny(v),
            },
            {
              title: t('refund.debit'),
              dataIndex: 'debit_usd',
              align: 'right',
              render: (v: number, r) => (r.status === 'succeeded' ? formatUsd(-v) : '—'),
            },
            {
              title: t('refund.uncovered'),
              dataIndex: 'uncovered_usd',
              align: 'right',
              render: (v: number) =>
                v > 0 ? <Typography.Text type="danger">{formatUsd(v)}</Typography.Text> : '—',
            },
            {
              title: t('refund.origin'),
              dataIndex: 'origin',
              render: (o: Refund['origin'], r) => (
                <Space orientation="vertical" size={0}>
                  <span>{t(`refund.origin.${o}`)}</span>
                  {r.reason ? <Typography.Text type="secondary">{r.reason}</Typography.Text> : null}
                </Space>
              ),
            },
          ]}
        />
        {refundable ? (
          <Form<RefundValues>
            // a new form for each amount left, so its default follows what was refunded
            key={leftFen}
            form={form}
            name={`refund-${topUp.id}`}
            layout="vertical"
            requiredMark={false}
            initialValues={{ amount_cny: leftFen / 100 }}
            onFinish={(v) =>
              modal.confirm({
                title: t('refund.confirm', {
                  amount: formatCny(v.amount_cny),
                  provider: t(`topup.provider.${topUp.provider}`),
                }),
                content: t('refund.confirmHint'),
                okText: t('refund.submit'),
                okButtonProps: { danger: true },
                cancelText: t('common.cancel'),
                onOk: () => refund.mutate(v),
              })
            }
          >
            <Form.Item
              label={t('refund.amount', { left: formatFen(leftFen) })}
              name="amount_cny"
              rules={[{ required: true }]}
            >
              <InputNumber
                min={0.01}
                max={leftFen / 100}
                precision={2}
                prefix="¥"
                style={{ width: '100%' }}
              />
            </Form.Item>
            <Form.Item
              label={t('billing.reason')}
              name="reason"
              rules={[{ required: true, whitespace: true }]}
            >
              <Input maxLength={256} />
            </Form.Item>
            {refund.error ? <ErrorAlert error={refund.error} style={{ marginBottom: 16 }} /> : null}
            <Button htmlType="submit" danger loading={refund.isPending}>
              {t('refund.submit')}
            </Button>
          </Form>
        ) : refunds.isSuccess ? (
          <Typography.Text type="secondary">
            {leftFen > 0 ? t('refund.notPaid') : t('refund.allRefunded')}
          </Typography.Text>
        ) : null}
      </Space>
    </Modal>
  );
}
