import { useMutation } from '@tanstack/react-query';
import { Button, Card, Checkbox, Form, Input, Result, Space, Typography } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { EmailField, NewPasswordField } from '../components/AccountFields';
import { ErrorAlert } from '../components/ErrorAlert';
import { useT } from '../i18n/i18n';
import { PageTitle } from '../components/PageTitle';

/** Forgot password: a reset code by e-mail, then the code and a new password. */
export function ForgotPasswordPage() {
  const t = useT();
  const [email, setEmail] = useState<string | null>(null);
  const forgot = useMutation({
    mutationFn: (v: { email: string }) => unwrap(api.POST('/console/api/password/forgot', { body: v })),
    onSuccess: (_r, v) => setEmail(v.email),
  });
  const reset = useMutation({
    mutationFn: (v: { code: string; password: string; revokeKeys?: boolean }) =>
      unwrap(
        api.POST('/console/api/password/reset', {
          body: {
            email: email ?? '',
            code: v.code.trim(),
            password: v.password,
            revoke_keys: !!v.revokeKeys,
          },
        }),
      ),
  });

  if (reset.isSuccess) {
    return (
      <Card>
        <Result
          status="success"
          title={<PageTitle style={{ fontSize: 24, textAlign: 'center' }}>{t('forgot.done')}</PageTitle>}
          subTitle={
            reset.data.keys_revoked > 0
              ? `${t('forgot.doneHint')} ${t('password.keysRevoked', { count: reset.data.keys_revoked })}`
              : t('forgot.doneHint')
          }
          extra={
            <Link to="/login">
              <Button type="primary">{t('login.submit')}</Button>
            </Link>
          }
        />
      </Card>
    );
  }
  return (
    <Card>
      <PageTitle style={{ marginBottom: 12 }}>{t('forgot.title')}</PageTitle>
      {email === null ? (
        <Form layout="vertical" onFinish={(v: { email: string }) => forgot.mutate(v)} requiredMark={false}>
          <Typography.Paragraph type="secondary">{t('forgot.intro')}</Typography.Paragraph>
          <EmailField autoComplete="username" />
          {forgot.error ? <ErrorAlert error={forgot.error} style={{ marginBottom: 16 }} /> : null}
          <Button type="primary" htmlType="submit" block loading={forgot.isPending}>
            {t('forgot.send')}
          </Button>
        </Form>
      ) : (
        <Form
          layout="vertical"
          onFinish={(v: { code: string; password: string; revokeKeys?: boolean }) => reset.mutate(v)}
          requiredMark={false}
        >
          <Typography.Paragraph role="status">{t('forgot.sent', { email })}</Typography.Paragraph>
          <Form.Item
            label={t('forgot.code')}
            name="code"
            rules={[{ required: true, pattern: /^\s*\d{6}\s*$/, message: t('signup.codeInvalid') }]}
          >
            <Input inputMode="numeric" autoComplete="one-time-code" maxLength={8} autoFocus />
          </Form.Item>
          <NewPasswordField label={t('field.newPassword')} />
          <Form.Item name="revokeKeys" valuePropName="checked" extra={t('password.revokeKeysHint')}>
            <Checkbox>{t('password.revokeKeys')}</Checkbox>
          </Form.Item>
          {reset.error ? <ErrorAlert error={reset.error} style={{ marginBottom: 16 }} /> : null}
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Button type="primary" htmlType="submit" block loading={reset.isPending}>
              {t('forgot.reset')}
            </Button>
            <Button type="link" block onClick={() => setEmail(null)}>
              {t('forgot.again')}
            </Button>
          </Space>
        </Form>
      )}
      <div style={{ marginTop: 16 }}>
        <Link to="/login">{t('signup.toLogin')}</Link>
      </div>
    </Card>
  );
}
