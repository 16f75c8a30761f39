/**
 * The API sessions behind SDKs at a router (issue 42; docs/control-protocol.md "ApiSessionCheck"): a router asks who
 * a legacy `svc-session` token is, or whether an OIDC session still lives and a client certificate is one of its own,
 * and names the API session of each dial. A check reads the store (a router asks once per SDK channel and must not be
 * told of a session another controller ended a moment ago); dials read identities and OIDC sessions through the
 * authentication cache, as API requests do (the builder decides, index.ts). Both apply the principal decision of
 * API requests (decision 0019): an unknown, ended, expired or revoked session, and one whose identity is disabled
 * or gone, is refused NOT_FOUND alike, so a router learns nothing about which.
 */
import type { ApiSessionCheck, ApiSessionCheckAnswer } from '../../control-protocol/bodies.js';
import { hashToken } from '../../crypto/secrets.js';
import type { ApiSession, Identity } from '../../domain/identity.js';
import type { OidcSession } from '../../domain/oidc.js';
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import type { CertificateFingerprintRepository } from '../../persistence/repositories/certificate-fingerprints.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { Clock } from '../../shared/clock.js';
import { judgePrincipal } from '../authentication/principal.js';
import { RouterRequestError } from './router-request-error.js';

/** A live API session as the dial decision and the posture evaluator need it (the shape request authentication gives). */
export interface SdkSession {
  kind: 'legacy' | 'oidc';
  session: ApiSession;
  identity: Identity;
}

export interface SdkSessions {
  /** Answers a router's ApiSessionCheck; RouterRequestError NOT_FOUND (or BAD_MESSAGE, NOT_ALLOWED) otherwise. */
  check(request: ApiSessionCheck): Promise<ApiSessionCheckAnswer>;
  /**
   * The live API session (legacy or OIDC) with this id; RouterRequestError NOT_FOUND otherwise. `identityId`, when
   * the caller expects one, is read beside the session rather than after it (a dial names both).
   */
  byId(apiSessionId: string, identityId?: string): Promise<SdkSession>;
}

/** OIDC session ids are UUIDs, legacy ones 16 letters and digits (api-session-listing.ts): the first read goes to the likely table. */
const OIDC_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The view of an OIDC session the posture evaluator reads (as request authentication builds it for an access token). */
function oidcView(session: OidcSession, now: Date): ApiSession {
  return {
    id: session.id,
    identityId: session.identityId,
    authMethod: session.amr[0] ?? 'oidc',
    authenticatorId: session.authenticatorId ?? '',
    ipAddress: session.ipAddress ?? null,
    configTypes: session.configTypes,
    createdAt: session.createdAt,
    lastActivityAt: now,
    outstanding: [],
    mfaRequired: session.amr.includes('totp'),
  };
}

export function createSdkSessions(deps: {
  apiSessions: Pick<ApiSessionRepository, 'findByTokenHash' | 'findById'>;
  oidc: Pick<OidcRepository, 'findSession'>;
  identities: Pick<IdentityRepository, 'findById'>;
  fingerprints: CertificateFingerprintRepository;
  /** Legacy activity this controller saw and has not written yet: it keeps a session alive as the store's does. */
  activity: { pending(sessionId: string): Date | undefined };
  sessionTimeoutMs: number;
  clock: Clock;
}): SdkSessions {
  const { clock } = deps;
  // One sentence for every way a session is not there: which one it was stays in the controller.
  const gone = (what: string) => new RouterRequestError('NOT_FOUND', `${what} names no live API session (unknown, ended, expired, or its identity is disabled)`);

  async function live(
    kind: 'legacy' | 'oidc',
    session: ApiSession | undefined,
    oidc: OidcSession | undefined,
    what: string,
    expected?: { id: string; read: Promise<Identity | undefined> },
  ): Promise<SdkSession> {
    if (!session) throw gone(what);
    const now = clock.now();
    let facts: { revoked?: boolean; expiresAt?: Date };
    if (kind === 'legacy') {
      const remembered = deps.activity.pending(session.id);
      const last = remembered && remembered > session.lastActivityAt ? remembered : session.lastActivityAt;
      facts = { expiresAt: new Date(last.getTime() + deps.sessionTimeoutMs) };
    } else {
      facts = { revoked: oidc?.revokedAt !== null };
    }
    const identity = expected?.id === session.identityId ? await expected.read : await deps.identities.findById(session.identityId);
    const principal = judgePrincipal(identity, facts, now);
    if (!principal.ok) throw gone(what);
    // A legacy session still answering its secondary factors may not act yet (spec: partial authentication).
    if (session.outstanding.length > 0) throw new RouterRequestError('NOT_ALLOWED', `${what} has secondary factors still to answer`);
    return { kind, session, identity: principal.identity };
  }

  async function oidcById(id: string, what: string, expected?: { id: string; read: Promise<Identity | undefined> }): Promise<SdkSession> {
    const oidc = await deps.oidc.findSession(id);
    return live('oidc', oidc && oidcView(oidc, clock.now()), oidc, what, expected);
  }

  return {
    async check(request) {
      const { legacyToken, apiSessionId, fingerprint } = request;
      if ((legacyToken === undefined) === (apiSessionId === undefined)) {
        throw new RouterRequestError('BAD_MESSAGE', 'ApiSessionCheck: exactly one of body.legacyToken and body.apiSessionId is required');
      }
      // The token is looked up by its SHA-256, as the store keeps it: the secret itself is never compared, stored or
      // logged (the sentences below never quote it).
      const found =
        legacyToken !== undefined
          ? await live('legacy', await deps.apiSessions.findByTokenHash(hashToken(legacyToken)), undefined, 'The legacy token')
          : await oidcById(apiSessionId as string, `API session '${apiSessionId}'`);
      const bound = await deps.fingerprints.ofSession(found.identity.id, found.session.id, clock.now());
      return {
        apiSessionId: found.session.id,
        identityId: found.identity.id,
        identityName: found.identity.name,
        legacy: found.kind === 'legacy',
        createdAt: found.session.createdAt.getTime(),
        certificateBound: bound.includes(fingerprint),
      };
    },
    async byId(apiSessionId, identityId) {
      const what = `API session '${apiSessionId}'`;
      const expected = identityId === undefined ? undefined : { id: identityId, read: deps.identities.findById(identityId) };
      // Settled even when the session's read fails first, so no rejection is left unhandled.
      expected?.read.catch(() => undefined);
      if (OIDC_ID.test(apiSessionId)) {
        const oidc = await deps.oidc.findSession(apiSessionId);
        if (oidc) return live('oidc', oidcView(oidc, clock.now()), oidc, what, expected);
        return live('legacy', await deps.apiSessions.findById(apiSessionId), undefined, what, expected);
      }
      const legacy = await deps.apiSessions.findById(apiSessionId);
      return legacy ? live('legacy', legacy, undefined, what, expected) : oidcById(apiSessionId, what, expected);
    },
  };
}
