import { ArrowLeftOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Col,
  Descriptions,
  Form,
  Input,
  InputNumber,
  Popconfirm,
  Row,
  Space,
  Tag,
  Typography,
} from 'antd';
import { Link, useParams, useSearchParams } from 'react-router';
import { $api, api, keyOf, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import { formatTime, formatUsd, formatUsdExact } from '../../lib/format';
import { looksLikeTransferReference, transferReference } from '../../lib/reference';
import type { Account } from './Accounts';

interface TopupValues {
  amount_usd: number;
  /** the bank's id of the transfer: each is credited once */
  reference: string;
  /** the reference the memo carried (MG...), checked by the API to be this account's */
  transfer_reference?: string;
  note?: string;
}
interface AdjustValues {
  amount_usd: number;
  reason: string;
  reference?: string;
}

export function AccountDetailPage() {
  const t = useT();
  const { message, modal } = App.useApp();
  const { accountId = '' } = useParams();
  // opened from a memo's reference (the account search): the credit form starts with it
  const [params] = useSearchParams();
  const memoReference = transferReference(params.get('reference') ?? '');
  const client = useQueryClient();
  const path = { params: { path: { id: accountId } } };
  const account = $api.useQuery('get', '/admin/api/accounts/{id}', path);
  const done = (text: string) => (data?: unknown) => {
    if (data && typeof data === 'object' && 'email' in data)
      client.setQueryData(
        $api.queryOptions('get', '/admin/api/accounts/{id}', path).queryKey,
        data as Account,
      );
    else
      void client.invalidateQueries({
        queryKey: $api.queryOptions('get', '/admin/api/accounts/{id}', path).queryKey,
      });
    void client.invalidateQueries({ queryKey: keyOf('/admin/api/accounts') });
    void message.success(text);
  };
  const setStatus = useMutation({
    mutationFn: (action: 'disable' | 'enable') =>
      action === 'disable'
        ? unwrap(api.POST('/admin/api/accounts/{id}/disable', path))
        : unwrap(api.POST('/admin/api/accounts/{id}/enable', path)),
    onSuccess: done(t('common.saved')),
    onError: (err) => void message.error(err.message),
  });
  const limits = useMutation({
    mutationFn: (v: { rpm_limit?: number | null; max_active_video_tasks?: number | null }) =>
      unwrap(
        api.PATCH('/admin/api/accounts/{id}/limits', {
          ...path,
          body: { rpm_limit: v.rpm_limit ?? null, max_active_video_tasks: v.max_active_video_tasks ?? null },
        }),
      ),
    onSuccess: done(t('common.saved')),
  });
  const [topupForm] = Form.useForm();
  const topup = useMutation({
    mutationFn: (v: TopupValues) =>
      unwrap(
        api.POST('/admin/api/accounts/{id}/topups', {
          ...path,
          body: {
            amount_usd: v.amount_usd,
            reference: v.reference.trim(),
            ...(v.transfer_reference?.trim() ? { transfer_reference: v.transfer_reference.trim() } : {}),
            ...(v.note?.trim() ? { note: v.note.trim() } : {}),
          },
        }),
      ),
    onSuccess: (r) => {
      topupForm.resetFields();
      const { credited, amount_usd, bonus_usd } = r as {
        credited: boolean;
        amount_usd: number;
        bonus_usd: number;
      };
      done(
        !credited
          ? t('admin.topupAlready')
          : bonus_usd > 0
            ? t('admin.topupCreditedBonus', { amount: formatUsd(amount_usd), bonus: formatUsd(bonus_usd) })
            : t('admin.topupCredited'),
      )();
    },
  });
  const [adjustForm] = Form.useForm();
  const adjust = useMutation({
    mutationFn: (v: AdjustValues) =>
      unwrap(api.POST('/admin/api/accounts/{id}/adjustments', { ...path, body: v })),
    onSuccess: () => {
      adjustForm.resetFields();
      done(t('admin.adjusted'))();
    },
  });
  // the API's range; an InputNumber's own bounds would change the number typed without a word
  const limitRule = {
    type: 'integer' as const,
    min: 1,
    max: 1_000_000,
    message: t('admin.limitRange'),
  };
  const a = account.data;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Link to="/admin/accounts">
        <ArrowLeftOutlined /> {t('nav.accounts')}
      </Link>
      {account.error ? <ErrorAlert error={account.error} onRetry={() => void account.refetch()} /> : null}
      {account.isPending ? <Card loading /> : null}
      {a ? (
        <>
          <Typography.Title level={2} style={{ margin: 0, wordBreak: 'break-all' }}>
            {a.email}
          </Typography.Title>
          <Card>
            <Descriptions column={{ xs: 1, md: 2 }} size="small" bordered>
              <Descriptions.Item label="ID">{a.id}</Descriptions.Item>
              <Descriptions.Item label={t('videos.status')}>
                <Tag color={a.status === 'active' ? 'green' : 'red'}>{t(`admin.status.${a.status}`)}</Tag>
                {a.role === 'admin' ? <Tag color="blue">{t('admin.operator')}</Tag> : null}
              </Descriptions.Item>
              <Descriptions.Item label={t('dashboard.balance')}>{formatUsd(a.balance_usd)}</Descriptions.Item>
              <Descriptions.Item label={t('videos.created')}>{formatTime(a.created_at)}</Descriptions.Item>
              <Descriptions.Item label={t('admin.rpm')}>
                {a.limits.rpm ?? t('admin.default')}
              </Descriptions.Item>
              <Descriptions.Item label={t('admin.maxVideos')}>
                {a.limits.max_active_video_tasks ?? t('admin.default')}
              </Descriptions.Item>
            </Descriptions>
            <Space style={{ marginTop: 16 }}>
              {a.status === 'active' ? (
                <Popconfirm
                  title={t('admin.disableConfirm')}
                  description={t('admin.disableHint')}
                  okText={t('keys.disable')}
                  cancelText={t('common.cancel')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => setStatus.mutateAsync('disable')}
                >
                  <Button danger loading={setStatus.isPending}>
                    {t('admin.disable')}
                  </Button>
                </Popconfirm>
              ) : (
                <Button
                  type="primary"
                  loading={setStatus.isPending}
                  onClick={() => setStatus.mutate('enable')}
                >
                  {t('admin.enable')}
                </Button>
              )}
            </Space>
          </Card>
          <Row gutter={[16, 16]}>
            <Col xs={24} lg={8}>
              <Card title={t('admin.limits')}>
                <Form
                  layout="vertical"
                  initialValues={{
                    rpm_limit: a.limits.rpm,
                    max_active_video_tasks: a.limits.max_active_video_tasks,
                  }}
                  onFinish={(v) => limits.mutate(v)}
                >
                  <Form.Item
                    label={t('admin.rpm')}
                    name="rpm_limit"
                    extra={t('admin.emptyDefault')}
                    rules={[limitRule]}
                  >
                    <InputNumber precision={0} style={{ width: '100%' }} />
                  </Form.Item>
                  <Form.Item
                    label={t('admin.maxVideos')}
                    name="max_active_video_tasks"
                    extra={t('admin.emptyDefault')}
                    rules={[limitRule]}
                  >
                    <InputNumber precision={0} style={{ width: '100%' }} />
                  </Form.Item>
                  {limits.error ? <ErrorAlert error={limits.error} style={{ marginBottom: 16 }} /> : null}
                  <Button htmlType="submit" loading={limits.isPending}>
                    {t('common.save')}
                  </Button>
                </Form>
              </Card>
            </Col>
            <Col xs={24} lg={8}>
              <Card title={t('admin.bankTopup')}>
                <Form
                  form={topupForm}
                  layout="vertical"
                  initialValues={{ transfer_reference: memoReference }}
                  onFinish={(v: TopupValues) =>
                    modal.confirm({
                      title: t('admin.creditConfirm', {
                        amount: formatUsdExact(v.amount_usd),
                        email: a.email,
                      }),
                      content: t('admin.creditConfirmHint', { reference: v.reference.trim() }),
                      okText: t('admin.credit'),
                      cancelText: t('common.cancel'),
                      onOk: () => topup.mutate(v),
                    })
                  }
                  requiredMark={false}
                >
                  <Form.Item label={t('admin.amountUsd')} name="amount_usd" rules={[{ required: true }]}>
                    <InputNumber min={0.01} precision={2} prefix="$" style={{ width: '100%' }} />
                  </Form.Item>
                  <Form.Item
                    label={t('admin.transferReference')}
                    name="reference"
                    extra={t('admin.transferReferenceHint')}
                    rules={[
                      { required: true, whitespace: true },
                      {
                        // the memo's reference is the same for every transfer of the account: as the
                        // once-only id it would swallow the next transfer of the same amount
                        validator: async (_r, v: string | undefined) => {
                          if (v && looksLikeTransferReference(v)) throw new Error(t('admin.bankIdNotMemo'));
                        },
                      },
                    ]}
                  >
                    <Input maxLength={128} />
                  </Form.Item>
                  <Form.Item
                    label={t('admin.memoReference')}
                    name="transfer_reference"
                    extra={t('admin.memoReferenceHint')}
                    rules={[
                      {
                        validator: async (_r, v: string | undefined) => {
                          if (v?.trim() && !transferReference(v)) throw new Error(t('admin.referenceShape'));
                        },
                      },
                    ]}
                  >
                    <Input maxLength={64} />
                  </Form.Item>
                  <Form.Item label={t('admin.note')} name="note">
                    <Input maxLength={500} />
                  </Form.Item>
                  {topup.error ? <ErrorAlert error={topup.error} style={{ marginBottom: 16 }} /> : null}
                  <Button type="primary" htmlType="submit" loading={topup.isPending}>
                    {t('admin.credit')}
                  </Button>
                </Form>
              </Card>
            </Col>
            <Col xs={24} lg={8}>
              <Card title={t('admin.adjustment')}>
                <Form
                  form={adjustForm}
                  layout="vertical"
                  onFinish={(v: AdjustValues) =>
                    modal.confirm({
                      title: t(v.amount_usd < 0 ? 'admin.takeConfirm' : 'admin.giveConfirm', {
                        amount: formatUsdExact(Math.abs(v.amount_usd)),
                        email: a.email,
                      }),
                      content: t('admin.adjustConfirmHint', { reason: v.reason.trim() }),
                      okText: t('admin.apply'),
                      cancelText: t('common.cancel'),
                      onOk: () => adjust.mutate(v),
                    })
                  }
                  requiredMark={false}
                >
                  <Form.Item label={t('admin.amountSigned')} name="amount_usd" rules={[{ required: true }]}>
                    <InputNumber precision={6} prefix="$" style={{ width: '100%' }} />
                  </Form.Item>
                  <Form.Item
                    label={t('billing.reason')}
                    name="reason"
                    rules={[{ required: true, whitespace: true }]}
                  >
                    <Input maxLength={500} />
                  </Form.Item>
                  <Form.Item label={t('billing.reference')} name="reference">
                    <Input maxLength={128} />
                  </Form.Item>
                  {adjust.error ? <ErrorAlert error={adjust.error} style={{ marginBottom: 16 }} /> : null}
                  <Button htmlType="submit" loading={adjust.isPending}>
                    {t('admin.apply')}
                  </Button>
                </Form>
              </Card>
            </Col>
          </Row>
        </>
      ) : null}
    </Space>
  );
}
