import { Form, Input } from 'antd';
import type { ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { MIN_PASSWORD_LENGTH } from '../lib/password';
import { PasswordStrength } from './PasswordStrength';

/** The e-mail field of the sign-in, sign-up and reset forms (form field `email`). */
export function EmailField({ autoComplete }: { autoComplete: 'email' | 'username' }) {
  const t = useT();
  return (
    <Form.Item
      label={t('field.email')}
      name="email"
      rules={[{ required: true, type: 'email', message: t('field.emailInvalid') }]}
    >
      <Input type="email" autoComplete={autoComplete} autoFocus />
    </Form.Item>
  );
}

/**
 * A new password (form field `password`): the API's least length as the rule, and a strength meter
 * that follows what is typed.
 */
export function NewPasswordField({ label, extra }: { label: ReactNode; extra?: ReactNode }) {
  const t = useT();
  const password: string | undefined = Form.useWatch('password');
  const rule = t('password.rule', { min: MIN_PASSWORD_LENGTH });
  return (
    <>
      <Form.Item
        label={label}
        name="password"
        extra={extra}
        rules={[{ required: true, min: MIN_PASSWORD_LENGTH, message: rule }]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <PasswordStrength password={password ?? ''} />
    </>
  );
}
