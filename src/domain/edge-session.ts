/**
 * Sessions of the client API (issue 15, item 3; docs/decisions/0031-edge-sessions.md): an identity's right, for one
 * API session, to dial or bind one service through edge routers. Not to be confused with the API session (the login)
 * it belongs to: a session lives only while that API session does and while a service policy still grants it.
 */
import type { ServicePolicyType, Tags } from './policy.js';

export interface EdgeSession {
  id: string;
  /** The API session it belongs to, whichever kind (a legacy session id, or an OIDC session's `z_asid`). */
  apiSessionId: string;
  apiSessionKind: 'legacy' | 'oidc';
  identityId: string;
  serviceId: string;
  type: ServicePolicyType;
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}

/** A session with the name of its service, as lists and details show it. */
export interface NamedEdgeSession extends EdgeSession {
  serviceName: string;
}
