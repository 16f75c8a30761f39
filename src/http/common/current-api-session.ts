/**
 * The current API session (legacy flow): read it, or end it (logout). Reading is allowed while the session is
 * still partially authenticated (spec: Legacy API session states).
 */
import { Type } from 'typebox';
import type { AuthContext } from '../../services/request-auth.js';
import { secondsUntil } from '../../shared/clock.js';
import { authQueriesOf, totpRequired } from '../../domain/auth-query.js';
import { ApiErrorBody, DateTime, EmptyEnvelope, Envelope, Links } from '../schemas/common.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

export const CurrentApiSession = Type.Object({
  id: Type.String(),
  identityId: Type.String(),
  identity: Type.Object({ id: Type.String(), name: Type.String() }),
  authMethod: Type.String(),
  isMfaRequired: Type.Boolean(),
  isMfaComplete: Type.Boolean(),
  authQueries: Type.Array(Type.Object({}, { additionalProperties: true })),
  expiresAt: DateTime,
  expirationSeconds: Type.Integer(),
  lastActivityAt: DateTime,
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});

/**
 * The wire view of a legacy session (without its token: that is shown once, at authentication). Its auth queries
 * point at `authenticate/mfa` of the API the session was read through (`prefix`).
 */
export function currentApiSessionView(auth: Pick<AuthContext, 'session' | 'identity' | 'expiresAt'>, now: Date, prefix: string) {
  const { session, identity } = auth;
  const totpOutstanding = totpRequired(session.outstanding);
  return {
    id: session.id,
    identityId: identity.id,
    identity: { id: identity.id, name: identity.name },
    authMethod: session.authMethod,
    isMfaRequired: session.mfaRequired,
    isMfaComplete: session.mfaRequired && !totpOutstanding,
    authQueries: authQueriesOf(session.outstanding, { totp: `${prefix}/authenticate/mfa`, extJwt: `${prefix}/authenticate` }),
    expiresAt: auth.expiresAt.toISOString(),
    expirationSeconds: secondsUntil(auth.expiresAt, now),
    lastActivityAt: session.lastActivityAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.lastActivityAt.toISOString(),
    tags: {},
    _links: { self: { href: './current-api-session' }, 'current-identity': { href: './current-identity' } },
  };
}

const tags = ['Current API Session'];

export const currentApiSessionRoutes = [
  defineRoute({
    method: 'GET',
    url: '/current-api-session',
    operationId: 'getCurrentAPISession',
    summary: 'Returns the API session used for this request',
    tags,
    access: 'partial',
    schema: { response: { 200: Envelope(CurrentApiSession), 401: ApiErrorBody } },
    handler: ({ auth, api }) => envelope(currentApiSessionView(auth!, api.services.clock.now(), api.prefix)),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/current-api-session',
    operationId: 'deleteCurrentApiSession',
    summary: 'Logs out: ends the API session used for this request',
    tags,
    // Spec rule 6: a partially authenticated session may only answer, enroll and read itself; it cannot log out.
    access: 'session',
    schema: { response: { 200: EmptyEnvelope, 401: ApiErrorBody } },
    handler: async ({ auth, api }) => {
      // An OIDC session ends as at /oidc/end_session: its access tokens stop and its refresh family is revoked.
      if (auth!.kind === 'oidc') await api.services.oidc?.endSessionById(auth!.session.id);
      else await api.services.apiSessions.end(auth!.session.id);
      return envelope({});
    },
  }),
];
