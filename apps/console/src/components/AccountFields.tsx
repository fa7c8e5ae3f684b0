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
 * A new password (form field `password`), typed twice (field `confirm`, not sent): the API's least
 * length as the rule, said when it is broken, and a strength meter that follows what is typed.
 */
export function NewPasswordField({ label }: { label: ReactNode }) {
  const t = useT();
  const password: string | undefined = Form.useWatch('password');
  return (
    <>
      <Form.Item
        label={label}
        name="password"
        rules={[
          { required: true, message: t('field.passwordRequired') },
          { min: MIN_PASSWORD_LENGTH, message: t('password.rule', { min: MIN_PASSWORD_LENGTH }) },
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <PasswordStrength password={password ?? ''} />
      <Form.Item
        label={t('field.passwordAgain')}
        name="confirm"
        dependencies={['password']}
        rules={[
          { required: true, message: t('field.passwordAgainRequired') },
          ({ getFieldValue }) => ({
            validator: (_r, value) =>
              !value || getFieldValue('password') === value
                ? Promise.resolve()
                : Promise.reject(new Error(t('field.passwordMismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </>
  );
}
