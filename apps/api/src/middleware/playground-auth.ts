import { PlaygroundKeyOffError, playgroundPrincipal, TooManyKeysError } from '@mediagate/shared/accounts';
import { ApiError } from '@mediagate/shared/errors';
import type { RequestHandler } from 'express';
import type { ApiDeps } from '../deps';
import { requireSession, sessionOf } from './session';

/**
 * The signed-in account calls as its playground key (made on first use, its secret never kept nor
 * sent): the key's per-minute limit is counted as for any call with it, and what follows is the
 * call a key would make.
 */
export function playgroundAuth(deps: ApiDeps): RequestHandler[] {
  const asPlaygroundKey: RequestHandler = async (req, res, next) => {
    try {
      const principal = await playgroundPrincipal(deps.database.db, sessionOf(req).accountId).catch(
        (err: unknown) => {
          if (err instanceof PlaygroundKeyOffError) throw new ApiError('permission_denied', err.message);
          if (err instanceof TooManyKeysError)
            throw new ApiError(
              'conflict',
              'The playground needs a key of its own, and the account holds the most keys it may; delete one first.',
            );
          throw err;
        },
      );
      req.principal = principal;
      await deps.rateLimits.perMinute(
        res,
        'key',
        principal.keyId,
        principal.rpmLimit ?? deps.rateLimits.config.perKeyRpm,
      );
      next();
    } catch (err) {
      next(err);
    }
  };
  return [requireSession(deps), asPlaygroundKey];
}
