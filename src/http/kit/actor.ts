/** The actor recorded in the audit trail for a request: the authenticated identity. */
import type { Actor } from '../../domain/audit.js';
import type { AuthContext } from '../../services/authentication/request-auth.js';

export function actorOf(auth: AuthContext | undefined): Actor {
  if (!auth) throw new Error('actorOf needs an authenticated route (access other than none)');
  return { id: auth.identity.id, name: auth.identity.name };
}
