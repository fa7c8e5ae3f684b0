import { Alert, Button, Typography } from 'antd';
import { type CSSProperties, useState } from 'react';
import { ApiError } from '../api/client';
import { useT } from '../i18n/i18n';
import { errorMessage, errorWords } from '../lib/error-words';

/** The server's own words of an error (operators' pages); customers' pages use useErrorText. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The words of an error in the page's language (a toast, a field's message). */
export function useErrorText(): (error: unknown) => string {
  const t = useT();
  return (error) => errorMessage(error, t);
}

/**
 * An error shown in words, never swallowed: titled by what the person can do about it, in the
 * page's language; the server's own message and code only when the details are opened. With a
 * retry button when a retry makes sense.
 */
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
  const [open, setOpen] = useState(false);
  if (!error) return null;
  const words = errorWords(error, t);
  // operators' pages keep the API's own words (they name references, ids and rules exactly)
  if (error instanceof ApiError && window.location.pathname.startsWith('/admin/')) {
    words.text = error.message;
  }
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      style={style}
      title={title ?? words.title}
      description={
        <span>
          {words.text}
          {words.details ? (
            <>
              {' '}
              <Typography.Link
                onClick={() => setOpen((o) => !o)}
                aria-expanded={open}
                style={{ fontSize: 12 }}
              >
                {t('error.details')}
              </Typography.Link>
              {open ? (
                <Typography.Text
                  type="secondary"
                  code
                  style={{ display: 'block', marginTop: 4, fontSize: 12, wordBreak: 'break-word' }}
                >
                  {words.details}
                </Typography.Text>
              ) : null}
            </>
          ) : null}
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
