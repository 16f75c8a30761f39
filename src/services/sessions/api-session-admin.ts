/**
 * Administrators' view of API sessions (`/api-sessions` of the Management API), legacy and OIDC alike: list them (by
 * identity with the filter `identityId = "…"`, by kind with `kind = "oidc"`), read one, and revoke one. A revoked
 * session stops working at once on this controller and, through the change log, on the others: a legacy session is
 * deleted as at logout, an OIDC session ended as at `/oidc/end_session` (its access tokens and its refresh family).
 * Tokens are stored only as hashes, so no view carries one.
 */
import type { Actor } from '../../domain/audit.js';
import type { CertExtensionFlags } from '../../domain/authenticator.js';
import type { ApiSession } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import { LISTED_API_SESSION_FIELDS, type ApiSessionKind, type ApiSessionListingRepository, type ListedApiSession } from '../../persistence/repositories/api-session-listing.js';
import type { LivenessWindow } from '../../persistence/repositories/session-presence.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditService } from '../audit/audit.js';
import type { ListPage } from '../list-page.js';
import type { SessionActivity } from './session-activity.js';

/** A session with its kind, the name of its identity and the certificate extension flags of its login. */
export interface ApiSessionListing {
  kind: ApiSessionKind;
  session: ApiSession;
  identityName: string;
  certFlags: CertExtensionFlags;
}

export interface ApiSessionAdministration {
  /** One page of sessions; throws INVALID_FILTER / INVALID_PAGINATION / INVALID_SORT_IDENTIFIER. */
  list(params: RawListParams): Promise<ListPage<ApiSessionListing>>;
  /** One session; NOT_FOUND naming the id. */
  detail(id: string): Promise<ApiSessionListing>;
  /** Ends a session (audited as `actor`'s); NOT_FOUND when there is none. */
  revoke(actor: Actor, id: string): Promise<void>;
}

export function createApiSessionAdministration(deps: {
  apiSessions: Pick<ApiSessionRepository, 'delete' | 'identityNames'>;
  listing: ApiSessionListingRepository;
  activity: Pick<SessionActivity, 'forget'>;
  audit: Pick<AuditService, 'record'>;
  clock: Clock;
  /** How long an access token lives: an OIDC session is listed while one of its tokens can still be valid. */
  accessTokenLifetimeMs: number;
  /** Ends an OIDC session as `/oidc/end_session` does (the provider's one revocation path). */
  endOidcSession(id: string): Promise<void>;
  /** The certificate extension flags of each session's login, in one read. */
  certFlags(sessions: readonly ApiSession[]): Promise<CertExtensionFlags[]>;
}): ApiSessionAdministration {
  const filterableFields = Object.keys(LISTED_API_SESSION_FIELDS);
  const notFound = (id: string) => new ApiError('NOT_FOUND', { message: `No API session has the id '${id}'`, cause: { field: 'id', value: id } });

  /** Legacy sessions are listed as stored (a timed-out one is deleted when next presented or by housekeeping). */
  const window = (): LivenessWindow => {
    const now = deps.clock.now();
    return { now, legacyActiveAfter: new Date(0), accessIssuedAfter: new Date(now.getTime() - deps.accessTokenLifetimeMs) };
  };

  async function described(listed: ListedApiSession[]): Promise<ApiSessionListing[]> {
    const sessions = listed.map((item) => item.session);
    const [names, flags] = await Promise.all([deps.apiSessions.identityNames([...new Set(sessions.map((s) => s.identityId))]), deps.certFlags(sessions)]);
    return listed.map((item, index) => ({ ...item, identityName: names.get(item.session.identityId) ?? '', certFlags: flags[index] as CertExtensionFlags }));
  }

  async function find(id: string): Promise<ListedApiSession> {
    const found = await deps.listing.findById(id, window());
    if (!found) throw notFound(id);
    return found;
  }

  return {
    async list(params) {
      const query = parseListParams(params, LISTED_API_SESSION_FIELDS);
      const { items, totalCount } = await deps.listing.list(query, window());
      return { items: await described(items), pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    async detail(id) {
      return (await described([await find(id)]))[0] as ApiSessionListing;
    },
    async revoke(actor, id) {
      const { kind, session } = await find(id);
      if (kind === 'oidc') {
        await deps.endOidcSession(id);
      } else {
        deps.activity.forget(id);
        if (!(await deps.apiSessions.delete(id))) throw notFound(id);
      }
      await deps.audit.record(actor, 'delete', 'api-session', id, { identityId: session.identityId, kind });
    },
  };
}
