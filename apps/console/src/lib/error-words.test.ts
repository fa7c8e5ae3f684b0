import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { en } from '../i18n/en';
import { format, type Translate } from '../i18n/i18n';
import { zh } from '../i18n/zh';
import { errorWords } from './error-words';

const tr =
  (dict: Record<string, string>): Translate =>
  (key, vars) =>
    format(dict[key] ?? `MISSING ${key}`, vars);
const english = tr(en);
const chinese = tr(zh);

// every error the console meets, as the API words it
const ERRORS: Array<[string, ApiError]> = [
  ['wrong password', new ApiError('Wrong e-mail or password.', 401, 'invalid_credentials')],
  [
    'common password',
    new ApiError(
      "Invalid value for 'password': is one of the most common passwords; choose another.",
      400,
      'invalid_request',
      'password',
    ),
  ],
  [
    'zod too big',
    new ApiError(
      "Invalid value for 'rpm_limit': Too big: expected number to be <=1000000.",
      400,
      'invalid_request',
      'rpm_limit',
    ),
  ],
  ['missing', new ApiError("Missing required field 'email'.", 400, 'invalid_request', 'email')],
  ['wrong code', new ApiError('The code is wrong.', 400, 'invalid_request', 'code')],
  ['topup minimum', new ApiError('A top-up must be at least 35 CNY.', 400, 'invalid_request', 'amount_cny')],
  ['503', new ApiError('The database is busy; retry.', 503, 'service_unavailable', null, 2)],
  ['429', new ApiError('Too many attempts.', 429, 'rate_limit_exceeded', null, 30)],
  ['500', new ApiError('Internal error (request id req_1).', 500, 'server_error')],
  ['network', new ApiError('The server could not be reached (fetch failed).', 0, 'network_error')],
  ['name taken', new ApiError('A key named x exists.', 409, 'conflict', 'name')],
  ['no balance', new ApiError('Insufficient balance.', 402, 'insufficient_quota')],
];

describe('error words', () => {
  it.each(ERRORS)('%s: no English on a Chinese page, the code only in the details', (_n, err) => {
    const words = errorWords(err, chinese);
    expect(`${words.title} ${words.text}`).not.toMatch(/[A-Za-z]{3,}/);
    expect(words.text).not.toContain(err.code);
    expect(words.details).toContain(err.code);
  });

  it('names the field and the limit of a validation error, in both languages', () => {
    const err = ERRORS.find(([n]) => n === 'zod too big')![1];
    expect(errorWords(err, english).text).toBe('Requests per minute must be at most 1,000,000.');
    expect(errorWords(err, chinese).text).toBe('每分钟请求数不能大于 1,000,000。');
  });

  it('titles a mistake the user can fix "Please check", a limit "Please wait", and only a failure on our side "Something went wrong"', () => {
    const title = (n: string) => errorWords(ERRORS.find(([x]) => x === n)![1], english).title;
    expect(title('wrong password')).toBe('Please check');
    expect(title('common password')).toBe('Please check');
    expect(title('429')).toBe('Please wait');
    expect(title('503')).toBe('Temporarily unavailable');
    expect(title('500')).toBe('Something went wrong');
    expect(errorWords(ERRORS.find(([x]) => x === '503')![1], english).text).toBe(
      'The service is busy or under maintenance. Try again in 2 s.',
    );
  });
});
