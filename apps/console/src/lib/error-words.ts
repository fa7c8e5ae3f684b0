import { ApiError } from '../api/client';
import type { MessageKey } from '../i18n/en';
import type { Translate } from '../i18n/i18n';

/** An error as a person reads it, in the page's language. */
export interface ErrorWords {
  /** "Please check" for what the user can fix, "Please wait" for a limit, else "Something went wrong" */
  title: string;
  text: string;
  /** the server's own words and code, shown only when details are opened */
  details: string | null;
}

/** The words of the fields an error's `param` names; any other field is named as the API names it. */
const FIELDS: Record<string, MessageKey> = {
  email: 'field.email',
  password: 'field.password',
  new_password: 'field.newPassword',
  current_password: 'field.currentPassword',
  code: 'field.code',
  name: 'field.keyName',
  quota_usd: 'field.quota',
  allowed_ips: 'field.allowedIps',
  allowed_models: 'field.allowedModels',
  expires_at: 'field.expiresAt',
  amount_cny: 'field.amountCny',
  amount_usd: 'field.amountUsd',
  rpm_limit: 'field.rpmLimit',
  max_active_video_tasks: 'field.maxActiveTasks',
  reference: 'field.reference',
  url: 'field.url',
  model: 'field.model',
  prompt: 'field.prompt',
  file: 'field.image',
  image: 'field.image',
  provider: 'field.provider',
};

/** A limit from a message, with thousands separated (1000000 → 1,000,000), never rounded. */
const number = (raw: string) => {
  const [whole = '', fraction] = raw.split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
};

const fieldOf = (param: string | null, t: Translate): string =>
  param === null ? t('field.value') : FIELDS[param] ? t(FIELDS[param]) : param;

/**
 * The words of an invalid request, from its `param` and the validation that failed (the API's
 * messages for these follow fixed forms: zod's, and the password rules).
 */
function invalidRequest(e: ApiError, t: Translate): string {
  const field = fieldOf(e.param, t);
  const m = e.message;
  if (/most common passwords/.test(m)) return t('error.commonPassword');
  if (e.param === 'code') return t('error.wrongCode');
  if (e.param === 'current_password') return t('error.wrongCurrentPassword');
  let n = /at least (\d[\d,.]*) characters/.exec(m);
  if (n) return t('error.tooShort', { field, n: n[1]! });
  n = /at most (\d[\d,.]*) characters/.exec(m);
  if (n) return t('error.tooLong', { field, n: n[1]! });
  n = /Too big:.*?<=?\s*(-?\d+(?:\.\d+)?)/i.exec(m);
  if (n) return t('error.tooBig', { field, n: number(n[1]!) });
  n = /Too small:.*?>=?\s*(-?\d+(?:\.\d+)?)/i.exec(m);
  if (n) return t('error.tooSmall', { field, n: number(n[1]!) });
  n = /A top-up must be at least ([\d.,]+) CNY/.exec(m);
  if (n) return t('error.topupMinimum', { n: n[1]! });
  if (/^Missing required field/.test(m)) return t('error.missing', { field });
  if (/^Unrecognized field/.test(m)) return t('error.unknownField', { field });
  return e.param ? t('error.invalidField', { field }) : t('error.invalidRequest');
}

/** An error's title and words in the page's language, from its code and `param`, never the server's English. */
export function errorWords(error: unknown, t: Translate): ErrorWords {
  if (!(error instanceof ApiError)) {
    return {
      title: t('common.error'),
      text: t('error.unexpected'),
      details: error instanceof Error ? error.message : String(error),
    };
  }
  const details = `${error.message} (${[error.code, error.param].filter(Boolean).join(', ')})`;
  const wait = error.retryAfterSeconds;
  const check = { title: t('error.title.check'), details };
  switch (error.code) {
    case 'network_error':
      return { title: t('common.error'), text: t('error.network'), details };
    case 'invalid_request':
    case 'unsupported_operation':
      return { ...check, text: invalidRequest(error, t) };
    case 'invalid_credentials':
      return { ...check, text: t('error.invalidCredentials') };
    case 'invalid_session':
      return { ...check, text: t('error.invalidSession') };
    case 'insufficient_quota':
      return { ...check, text: t('error.insufficientQuota') };
    case 'permission_denied':
      return { ...check, text: t('error.permissionDenied') };
    case 'not_found':
    case 'model_not_found':
      return { ...check, text: t('error.notFound') };
    case 'conflict':
      return {
        ...check,
        text:
          error.param === 'email'
            ? t('error.emailTaken')
            : error.param === 'name'
              ? t('error.nameTaken')
              : t('error.conflict'),
      };
    case 'request_too_large':
      return { ...check, text: t('error.tooLarge') };
    case 'unsupported_media_type':
      return { ...check, text: t('error.unsupportedType') };
    case 'rate_limit_exceeded':
      return {
        title: t('error.title.wait'),
        text: wait ? t('error.rateLimitedFor', { s: wait }) : t('error.rateLimited'),
        details,
      };
    case 'service_unavailable':
      return {
        title: t('error.title.unavailable'),
        text: wait ? t('error.unavailableFor', { s: wait }) : t('error.unavailable'),
        details,
      };
    default:
      return error.status >= 400 && error.status < 500
        ? { ...check, text: t('error.invalidRequest') }
        : { title: t('common.error'), text: t('error.server'), details };
  }
}

/** The text alone (a toast, a field's message). */
export const errorMessage = (error: unknown, t: Translate): string => errorWords(error, t).text;
