import { ApiError } from '@mediagate/shared/errors';

/** A UTF-16 surrogate that is not half of a pair (with the `u` flag, a pair is one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Throws 400 `invalid_request` when any string of a parsed body, key or value at any depth, is
 * not well-formed UTF-16 (a lone or reversed surrogate, as `"\ud800"` in JSON can produce): no
 * such string can be stored as text or sent on as UTF-8, so it is refused before any route
 * reads it. `param` names the field.
 */
export function assertWellFormedStrings(value: unknown): void {
  const bad = findIllFormed(value);
  if (bad !== undefined) {
    throw new ApiError(
      'invalid_request',
      `${bad ? `'${bad}'` : 'The body'} contains an unpaired UTF-16 surrogate; send valid Unicode text.`,
      bad || undefined,
    );
  }
}

/** True when `text` is well-formed UTF-16 (every surrogate is half of a pair). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The path of the first ill-formed string (or key) in `value`, or undefined. Iterative, any depth. */
function findIllFormed(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) return path;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
      continue;
    }
    for (const [key, child] of Object.entries(item)) {
      if (!isWellFormedText(key)) return path;
      stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return undefined;
}
