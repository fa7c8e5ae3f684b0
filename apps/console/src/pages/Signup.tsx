import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Input, Result, Space, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, api, keyOf, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { EmailField, NewPasswordField } from '../components/AccountFields';
import { ErrorAlert } from '../components/ErrorAlert';
import { SecretReveal } from '../components/SecretReveal';
import { useT } from '../i18n/i18n';
import { formatMicroUsd } from '../lib/format';
import { useCountdown } from '../lib/use-countdown';
import { PageTitle } from '../components/PageTitle';

const DEFAULT_COOLDOWN_S = 60;

/** Sign up: e-mail and password, then the e-mailed 6-digit code; the default key is shown once at the end. */
export function SignupPage() {
  const t = useT();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [step, setStep] = useState<{ email: string; password: string } | null>(null);
  const [done, setDone] = useState<components['schemas']['Registered'] | null>(null);
  const [cooldown, startCooldown] = useCountdown();

  const register = useMutation({
    mutationFn: (v: { email: string; password: string }) =>
      unwrap(api.POST('/console/api/register', { body: v })),
    onSuccess: (r, v) => {
      setStep(v);
      startCooldown(r.resend_in ?? DEFAULT_COOLDOWN_S);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.retryAfterSeconds) startCooldown(err.retryAfterSeconds);
    },
  });
  const resend = useMutation({
    mutationFn: (email: string) => unwrap(api.POST('/console/api/register/resend', { body: { email } })),
    onSuccess: (r) => startCooldown(r.resend_in ?? DEFAULT_COOLDOWN_S),
    onError: (err) => {
      if (err instanceof ApiError && err.retryAfterSeconds) startCooldown(err.retryAfterSeconds);
    },
  });
  const verify = useMutation({
    mutationFn: (code: string) =>
      unwrap(
        api.POST('/console/api/register/verify', {
          body: { email: step?.email ?? '', password: step?.password ?? '', code },
        }),
      ),
    onSuccess: async (r) => {
      setDone(r);
      // signed in now (the answer set the session cookie): forget the "nobody" cached before
      client.removeQueries({ queryKey: keyOf('/console/api/session') });
    },
  });

  if (done) {
    return (
      <Card>
        <Result
          status="success"
          title={<PageTitle style={{ fontSize: 24, textAlign: 'center' }}>{t('signup.done')}</PageTitle>}
          subTitle={t('signup.credit', { amount: formatMicroUsd(done.balance_micro_usd) })}
          style={{ padding: '8px 0' }}
        />
        <SecretReveal value={done.api_key.key} label={t('signup.defaultKey')} />
        <Button
          type="primary"
          block
          style={{ marginTop: 16 }}
          onClick={() => navigate('/console', { replace: true })}
        >
          {t('signup.toConsole')}
        </Button>
      </Card>
    );
  }

  if (step) {
    return (
      <Card>
        <PageTitle style={{ marginBottom: 12 }}>{t('signup.codeTitle')}</PageTitle>
        <Typography.Paragraph>{t('signup.codeSent', { email: step.email })}</Typography.Paragraph>
        <Form
          layout="vertical"
          onFinish={(v: { code: string }) => verify.mutate(v.code.trim())}
          requiredMark={false}
        >
          <Form.Item
            label={t('signup.code')}
            name="code"
            rules={[{ required: true, pattern: /^\s*\d{6}\s*$/, message: t('signup.codeInvalid') }]}
          >
            <Input inputMode="numeric" autoComplete="one-time-code" maxLength={8} autoFocus />
          </Form.Item>
          {verify.error ? <ErrorAlert error={verify.error} style={{ marginBottom: 16 }} /> : null}
          {resend.error ? <ErrorAlert error={resend.error} style={{ marginBottom: 16 }} /> : null}
          {resend.isSuccess && !resend.isPending ? (
            <Typography.Paragraph type="success" role="status">
              {t('signup.resent')}
            </Typography.Paragraph>
          ) : null}
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Button type="primary" htmlType="submit" block loading={verify.isPending}>
              {t('signup.verify')}
            </Button>
            <Button
              block
              disabled={cooldown > 0}
              loading={resend.isPending}
              onClick={() => resend.mutate(step.email)}
            >
              {cooldown > 0 ? t('signup.resendIn', { seconds: cooldown }) : t('signup.resend')}
            </Button>
            <Button type="link" block onClick={() => setStep(null)}>
              {t('signup.changeEmail')}
            </Button>
          </Space>
        </Form>
      </Card>
    );
  }

  return (
    <Card>
      <PageTitle style={{ marginBottom: 12 }}>{t('signup.title')}</PageTitle>
      <Form
        layout="vertical"
        onFinish={(v: { email: string; password: string }) =>
          register.mutate({ email: v.email, password: v.password })
        }
        // a refusal is about what was sent: it leaves once the form changes (a strong password
        // typed after a common one leaves no red box behind)
        onValuesChange={() => {
          if (register.error) register.reset();
        }}
        requiredMark={false}
      >
        <EmailField autoComplete="email" />
        <NewPasswordField label={t('field.password')} />
        {register.error ? <ErrorAlert error={register.error} style={{ marginBottom: 16 }} /> : null}
        <Button type="primary" htmlType="submit" block loading={register.isPending}>
          {t('signup.submit')}
        </Button>
      </Form>
      <div style={{ marginTop: 16 }}>
        <Link to="/login">{t('signup.toLogin')}</Link>
      </div>
    </Card>
  );
}
