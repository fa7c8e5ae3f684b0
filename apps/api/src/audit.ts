import type { AuditActor } from '@mediagate/shared/audit';
import type { Request } from 'express';
import { sessionOf } from './middleware/session';

/** The operator behind an admin request, as the audit log records them. */
export function auditActor(req: Request): AuditActor {
  const session = sessionOf(req);
  return { operatorId: session.accountId, operatorEmail: session.email, requestId: String(req.id) };
}
