import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Input } from 'antd';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, keyOf, unwrap } from '../api/client';
import { safeNext } from '../auth';
import { EmailField } from '../components/AccountFields';
import { ErrorAlert } from '../components/ErrorAlert';
import { useT } from '../i18n/i18n';
import { PageTitle } from '../components/PageTitle';

/** Where to go after signing in: pages the API serves itself need a full page load. */
export function goAfterSignIn(next: string, navigate: (to: string) => void): void {
  if (next.startsWith('/admin/queues')) window.location.assign(next);
  else navigate(next);
}

export function LoginPage() {
  const t = useT();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const login = useMutation({
    mutationFn: (v: { email: string; password: string }) =>
      unwrap(api.POST('/console/api/login', { body: v })),
    onSuccess: async () => {
      client.clear();
      await client.invalidateQueries({ queryKey: keyOf('/console/api/session') });
      goAfterSignIn(safeNext(params.get('next')), (to) => navigate(to, { replace: true }));
    },
  });
  return (
    <Card>
      <PageTitle style={{ fontSize: 28, marginBottom: 16 }}>{t('login.title')}</PageTitle>
      <Form
        layout="vertical"
        onFinish={(v) => login.mutate(v)}
        requiredMark={false}
        disabled={login.isPending}
      >
        <EmailField autoComplete="username" />
        <Form.Item
          label={t('field.password')}
          name="password"
          rules={[{ required: true, message: t('field.passwordRequired') }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        {login.error ? <ErrorAlert error={login.error} style={{ marginBottom: 16 }} /> : null}
        <Button type="primary" htmlType="submit" block loading={login.isPending}>
          {t('login.submit')}
        </Button>
      </Form>
      <div
        style={{ marginTop: 16, display: 'flex', justifyContent: 'space-between', flexWrap: 'wrap', gap: 8 }}
      >
        <Link to="/signup">{t('login.toSignup')}</Link>
        <Link to="/forgot-password">{t('login.forgot')}</Link>
      </div>
    </Card>
  );
}
