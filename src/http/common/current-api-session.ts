/**
 * The current API session (legacy flow): read it, or end it (logout). Reading is allowed while the session is
 * still partially authenticated (spec: Legacy API session states).
 */
import type { AuthContext } from '../../services/authentication/request-auth.js';
import { isoTimestampsNear, secondsUntil } from '../../shared/clock.js';
import { createLru } from '../../shared/lru.js';
import { authQueriesOf, totpRequired } from '../../domain/auth-query.js';
import { ApiErrorBody, EmptyEnvelope, Envelope } from '../schemas/common.js';
import { CurrentApiSessionDetail } from '../schemas/api-session.js';
import { sessionExpiryText } from '../kit/access.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { NO_EXTENSION, type CertExtensionFlags } from '../../services/certificates/authenticator-extension.js';

/**
 * The wire view of a session, legacy or OIDC, with the credential that names it (`token`: the legacy token at
 * authentication and on reads, or the access token presented). Its auth queries point at `authenticate/mfa` of the
 * API the session was read through (`prefix`). The certificate extension flags are those of the login's
 * authenticator (services/certificates/authenticator-extension.ts; false when not given).
 */
export function currentApiSessionView(
  auth: Pick<AuthContext, 'session' | 'identity' | 'expiresAt' | 'token'>,
  now: Date,
  prefix: string,
  certFlags: CertExtensionFlags = NO_EXTENSION,
) {
  // Added to the fresh fields object rather than spread into a new one: on every authenticated SDK poll, and Node
  // 20's object spread of twenty fields costs about ten times as much (a few µs a request).
  return Object.assign(apiSessionFields(auth.session, auth.identity, prefix, certFlags), {
    _links: { self: { href: './current-api-session' }, 'current-identity': { href: './current-identity' } },
    token: auth.token,
    expiresAt: sessionExpiryText(auth.expiresAt),
    expirationSeconds: secondsUntil(auth.expiresAt, now),
  });
}

// A session read by its own request was active just now: its activity times are close together.
const activityText = isoTimestampsNear();

/**
 * What every view of an API session shows of it, whoever reads it (the session itself, or an administrator through
 * `/api-sessions`): all but its links, the credential presented and that credential's expiry.
 */
export function apiSessionFields(session: AuthContext['session'], identity: { id: string; name: string }, prefix: string, certFlags: CertExtensionFlags = NO_EXTENSION) {
  const lastActivityAt = activityText(session.lastActivityAt);
  return {
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    updatedAt: lastActivityAt,
    tags: {},
    identityId: identity.id,
    identity: { id: identity.id, name: identity.name, entity: 'identities', _links: selfLink('identities', identity.id) },
    authMethod: session.authMethod,
    authenticatorId: session.authenticatorId,
    configTypes: session.configTypes,
    ipAddress: session.ipAddress ?? '',
    authQueries: authQueriesOf(session.outstanding, { totp: `${prefix}/authenticate/mfa`, extJwt: `${prefix}/authenticate` }),
    isMfaRequired: session.mfaRequired,
    isMfaComplete: session.mfaRequired && !totpRequired(session.outstanding),
    ...certFlags,
    improperClientCertChain: false,
    lastActivityAt,
    // The reference's heartbeat-cached time; activity here is one value (kept in memory, written in batches).
    cachedLastActivityAt: lastActivityAt,
    // Required by the reference's apiSessionDetail (listed under `required` without a property of its own): the
    // cached copy of updatedAt, which here is the same activity time.
    cachedUpdatedAt: lastActivityAt,
  };
}

const tags = ['Current API Session'];

/**
 * What a session's view is made from, compared value by value (objects by reference, as the in-memory session keeps
 * them until they change): the same inputs make the same view.
 */
function viewInputs(auth: AuthContext, now: Date, prefix: string, flags: CertExtensionFlags): unknown[] {
  const { session, identity } = auth;
  return [
    session.id, session.lastActivityAt.getTime(), session.createdAt.getTime(), session.authMethod, session.authenticatorId,
    // An OIDC session's view is made for each request, its lists with it: compared by content.
    session.configTypes.join('\n'), session.outstanding.length === 0 ? 0 : session.outstanding,
    session.ipAddress, session.mfaRequired, identity.id, identity.name, auth.token, auth.expiresAt.getTime(), secondsUntil(auth.expiresAt, now), prefix, flags,
  ];
}

const sameInputs = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The last view answered from memory for each session (by id: an OIDC session's view is made anew for each request),
 * with its inputs. An SDK's session polled under load is read many times a millisecond (its activity time, the one
 * input that moves, has millisecond precision): an unchanged view is the same frozen object, so the memory lane
 * answers it with the text it wrote for it (decision 0042). Bounded: the sessions polled most recently.
 */
const lastViews = createLru<string, { inputs: unknown[]; body: object }>(4096);

export const currentApiSessionRoutes = [
  defineRoute({
    method: 'GET',
    url: '/current-api-session',
    operationId: 'getCurrentAPISession',
    summary: 'Returns the API session used for this request',
    tags,
    access: 'partial',
    uses: ['clock', 'certificates'],
    schema: { response: { 200: Envelope(CurrentApiSessionDetail), 401: ApiErrorBody } },
    fromMemory: ({ domains, auth, api }) => {
      const flags = domains.certificates.extension.flagsWithoutStore(auth.session);
      if (!flags) return undefined;
      const now = domains.clock.now();
      const inputs = viewInputs(auth, now, api.prefix, flags);
      const last = lastViews.get(auth.session.id);
      if (last !== undefined && sameInputs(last.inputs, inputs)) return last.body;
      const body = Object.freeze(envelope(currentApiSessionView(auth, now, api.prefix, flags)));
      lastViews.set(auth.session.id, { inputs, body });
      return body;
    },
    handler: async ({ domains, auth, api }) =>
      envelope(currentApiSessionView(auth!, domains.clock.now(), api.prefix, await domains.certificates.extension.flagsOf(auth!.session))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/current-api-session',
    operationId: 'deleteCurrentApiSession',
    summary: 'Logs out: ends the API session used for this request',
    tags,
    // Spec rule 6: a partially authenticated session may only answer, enroll and read itself; it cannot log out.
    access: 'session',
    uses: ['apiSessions', 'oidc'],
    schema: { response: { 200: EmptyEnvelope, 401: ApiErrorBody } },
    handler: async ({ auth, domains }) => {
      // An OIDC session ends as at /oidc/end_session: its access tokens stop and its refresh family is revoked.
      if (auth!.kind === 'oidc') await domains.oidc?.endSessionById(auth!.session.id);
      else await domains.apiSessions.end(auth!.session.id);
      return envelope({});
    },
  }),
];
