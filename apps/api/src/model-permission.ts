import { ApiError } from '@mediagate/shared/errors';
import type { Request } from 'express';
import { principalOf } from './middleware/auth';

/**
 * 403 `permission_denied` when the caller's key may not use `modelId`. Routes call it as soon as
 * the model is known, before any check of money or any work: permission comes before money on
 * every endpoint. The charge statement checks the same rule again, in the same order, against
 * the key row it locks (the principal may be a moment old).
 */
export function requireModelAllowed(req: Request, modelId: string): void {
  const { allowedModels } = principalOf(req);
  if (allowedModels && !allowedModels.includes(modelId)) {
    throw new ApiError('permission_denied', `This API key may not use the model '${modelId}'.`, 'model');
  }
}
