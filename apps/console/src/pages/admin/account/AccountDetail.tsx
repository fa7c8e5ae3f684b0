import { ArrowLeftOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, Descriptions, Form, Popconfirm, Row, Space, Tag } from 'antd';
import { Link, useParams, useSearchParams } from 'react-router';
import { $api, api, keyOf, unwrap } from '../../../api/client';
import { ErrorAlert, useErrorText } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatTime, formatUsd } from '../../../lib/format';
import { transferReference } from '../../../lib/reference';
import { AdjustmentForm, type AdjustValues } from './components/AdjustmentForm';
import { BankTopUpForm, type TopupValues } from './components/BankTopUpForm';
import { CustomerRecords } from './components/CustomerRecords';
import { LimitsForm, type LimitsValues } from './components/LimitsForm';
import { PageTitle } from '../../../components/PageTitle';

/**
 * One customer in one place: the account and its limits, the operator's credit and correction
 * forms, and its ledger, top-ups, keys, tasks and audit entries.
 */
export function AccountDetailPage() {
  const t = useT();
  const { message } = App.useApp();
  // a toast speaks the page's language (error boxes keep the API's words for operators)
  const errorText = useErrorText();
  const { accountId = '' } = useParams();
  // opened from a memo's reference (the account search): the credit form starts with it
  const [params] = useSearchParams();
  const memoReference = transferReference(params.get('reference') ?? '');
  const client = useQueryClient();
  const path = { params: { path: { id: accountId } } };
  const account = $api.useQuery('get', '/admin/api/accounts/{id}', path);
  /** after a change: the account and what lists it are read again */
  const done = (text: string) => {
    for (const route of [
      '/admin/api/accounts/{id}',
      '/admin/api/accounts',
      '/admin/api/accounts/{id}/ledger',
      '/admin/api/audit-log',
    ] as const)
      void client.invalidateQueries({ queryKey: keyOf(route) });
    void message.success(text);
  };
  const setStatus = useMutation({
    mutationFn: (action: 'disable' | 'enable') =>
      action === 'disable'
        ? unwrap(api.POST('/admin/api/accounts/{id}/disable', path))
        : unwrap(api.POST('/admin/api/accounts/{id}/enable', path)),
    onSuccess: () => done(t('common.saved')),
    onError: (err) => void message.error(errorText(err)),
  });
  const limits = useMutation({
    mutationFn: (v: LimitsValues) =>
      unwrap(
        api.PATCH('/admin/api/accounts/{id}/limits', {
          ...path,
          body: { rpm_limit: v.rpm_limit ?? null, max_active_video_tasks: v.max_active_video_tasks ?? null },
        }),
      ),
    onSuccess: () => done(t('common.saved')),
  });
  const [topupForm] = Form.useForm<TopupValues>();
  const topup = useMutation({
    mutationFn: (v: TopupValues) =>
      unwrap(
        api.POST('/admin/api/accounts/{id}/topups', {
          ...path,
          body: {
            amount_cny: v.amount_cny,
            reference: v.reference.trim(),
            ...(v.transfer_reference?.trim() ? { transfer_reference: v.transfer_reference.trim() } : {}),
            ...(v.note?.trim() ? { note: v.note.trim() } : {}),
          },
        }),
      ),
    onSuccess: ({ credited, amount_usd, bonus_usd }) => {
      topupForm.resetFields();
      done(
        !credited
          ? t('admin.topupAlready')
          : bonus_usd > 0
            ? t('admin.topupCreditedBonus', { amount: formatUsd(amount_usd), bonus: formatUsd(bonus_usd) })
            : t('admin.topupCredited'),
      );
    },
  });
  const [adjustForm] = Form.useForm<AdjustValues>();
  const adjust = useMutation({
    mutationFn: (v: AdjustValues) =>
      unwrap(api.POST('/admin/api/accounts/{id}/adjustments', { ...path, body: v })),
    onSuccess: () => {
      adjustForm.resetFields();
      done(t('admin.adjusted'));
    },
  });
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
          <PageTitle breakAll>{a.email}</PageTitle>
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
                <LimitsForm
                  initial={{
                    rpm_limit: a.limits.rpm,
                    max_active_video_tasks: a.limits.max_active_video_tasks,
                  }}
                  onSubmit={(v) => limits.mutate(v)}
                  pending={limits.isPending}
                  error={limits.error}
                />
              </Card>
            </Col>
            <Col xs={24} lg={8}>
              <Card title={t('admin.bankTopup')}>
                <BankTopUpForm
                  form={topupForm}
                  email={a.email}
                  memoReference={memoReference}
                  onSubmit={(v) => topup.mutate(v)}
                  pending={topup.isPending}
                  error={topup.error}
                />
              </Card>
            </Col>
            <Col xs={24} lg={8}>
              <Card title={t('admin.adjustment')}>
                <AdjustmentForm
                  form={adjustForm}
                  email={a.email}
                  onSubmit={(v) => adjust.mutate(v)}
                  pending={adjust.isPending}
                  error={adjust.error}
                />
              </Card>
            </Col>
          </Row>
          <CustomerRecords accountId={a.id} />
        </>
      ) : null}
    </Space>
  );
}
