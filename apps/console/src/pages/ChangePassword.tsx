import { useMutation } from '@tanstack/react-query';
import { App, Button, Card, Checkbox, Form, Input, Typography } from 'antd';
import { api, unwrap } from '../api/client';
import { NewPasswordField } from '../components/AccountFields';
import { ErrorAlert } from '../components/ErrorAlert';
import { useT } from '../i18n/i18n';
import { PageTitle } from '../components/PageTitle';

export function ChangePasswordPage() {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const change = useMutation({
    mutationFn: (v: { current_password: string; new_password: string; revoke_keys: boolean }) =>
      unwrap(api.POST('/console/api/password/change', { body: v })),
    onSuccess: (done) => {
      form.resetFields();
      void message.success(
        done.keys_revoked > 0
          ? `${t('changePassword.done')} ${t('password.keysRevoked', { count: done.keys_revoked })}`
          : t('changePassword.done'),
      );
    },
  });
  return (
    <Card style={{ maxWidth: 480 }}>
      <PageTitle style={{ marginBottom: 12 }}>{t('nav.changePassword')}</PageTitle>
      <Typography.Paragraph type="secondary">{t('changePassword.intro')}</Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(v: { current: string; password: string; revokeKeys?: boolean }) =>
          change.mutate({
            current_password: v.current,
            new_password: v.password,
            revoke_keys: !!v.revokeKeys,
          })
        }
      >
        <Form.Item
          label={t('field.currentPassword')}
          name="current"
          rules={[{ required: true, message: t('field.passwordRequired') }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <NewPasswordField label={t('field.newPassword')} />
        <Form.Item name="revokeKeys" valuePropName="checked" extra={t('password.revokeKeysHint')}>
          <Checkbox>{t('password.revokeKeys')}</Checkbox>
        </Form.Item>
        {change.error ? <ErrorAlert error={change.error} style={{ marginBottom: 16 }} /> : null}
        <Button type="primary" htmlType="submit" loading={change.isPending}>
          {t('changePassword.submit')}
        </Button>
      </Form>
    </Card>
  );
}
