import { Alert, Button } from 'antd';
import type { CSSProperties } from 'react';
import { ApiError } from '../api/client';
import { useT } from '../i18n/i18n';

/** The words of an error: the API's message (with its code), else the error's own message. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** An error shown in words, never swallowed; with a retry button when a retry makes sense. */
export function ErrorAlert({
  error,
  onRetry,
  style,
  title,
}: {
  error: unknown;
  onRetry?: () => void;
  style?: CSSProperties;
  title?: string;
}) {
  const t = useT();
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      style={style}
      title={title ?? t('common.error')}
      description={
        <span>
          {errorText(error)}
          {code && code !== 'http_error' ? <span style={{ opacity: 0.6 }}> ({code})</span> : null}
        </span>
      }
      action={
        onRetry ? (
          <Button size="small" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        ) : undefined
      }
    />
  );
}
