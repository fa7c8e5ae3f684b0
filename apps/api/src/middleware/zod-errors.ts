import { ApiError } from '@mediagate/shared/errors';
import type { ZodError } from 'zod';

const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');

/** The first zod issue as a 400 whose message and `param` name the field. */
export function zodErrorToApiError(err: ZodError): ApiError {
  const issue = err.issues[0];
  if (!issue) return new ApiError('invalid_request', 'Invalid request.');
  const base = fieldPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((k) => (base ? `${base}.${k}` : k));
    const where = base ? `in '${base}'` : 'at the top level';
    return new ApiError(
      'invalid_request',
      `Unrecognized field${names.length > 1 ? 's' : ''} ${names.map((n) => `'${n}'`).join(', ')} ${where}.` +
        (base
          ? ''
          : ' Only model, prompt and metadata are allowed; put every other parameter inside metadata.'),
      names[0],
    );
  }
  // zod leaves `input` out of its issues: a missing field is the type issue that received undefined
  // (a value of another type is named as such below, never as missing)
  if (
    issue.code === 'invalid_type' &&
    issue.input === undefined &&
    /received undefined$/.test(issue.message)
  ) {
    return new ApiError('invalid_request', `Missing required field '${base}'.`, base);
  }
  return new ApiError(
    'invalid_request',
    `Invalid value for '${base || 'body'}': ${issue.message}.`,
    base || undefined,
  );
}
