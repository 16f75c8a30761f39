/**
 * Administrators' view of legacy API sessions (`/api-sessions` of the Management API): list them (by identity with
 * the filter `identityId = "…"`), read one, and revoke one. A revoked session stops working at once on this
 * controller and, through the change log, on the others. Tokens are stored only as hashes, so no view carries one.
 */
import type { Actor } from '../../domain/audit.js';
import type { ApiSession } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { API_SESSION_FIELDS, type ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import type { AuditService } from '../audit/audit.js';
import type { ListPage } from '../list-page.js';
import type { SessionActivity } from './session-activity.js';

/** A session with the name of its identity. */
export interface ApiSessionListing {
  session: ApiSession;
  identityName: string;
}

export interface ApiSessionAdministration {
  /** One page of sessions, newest last; throws INVALID_FILTER / INVALID_PAGINATION / INVALID_SORT_IDENTIFIER. */
  list(params: RawListParams): Promise<ListPage<ApiSessionListing>>;
  /** One session; NOT_FOUND naming the id. */
  detail(id: string): Promise<ApiSessionListing>;
  /** Ends a session (audited as `actor`'s); NOT_FOUND when there is none. */
  revoke(actor: Actor, id: string): Promise<void>;
}

export function createApiSessionAdministration(deps: {
  apiSessions: ApiSessionRepository;
  activity: Pick<SessionActivity, 'forget'>;
  audit: Pick<AuditService, 'record'>;
}): ApiSessionAdministration {
  const filterableFields = Object.keys(API_SESSION_FIELDS);
  const notFound = (id: string) => new ApiError('NOT_FOUND', { message: `No API session has the id '${id}'`, cause: { field: 'id', value: id } });
  const named = async (sessions: ApiSession[]) => {
    const names = await deps.apiSessions.identityNames([...new Set(sessions.map((s) => s.identityId))]);
    return sessions.map((session) => ({ session, identityName: names.get(session.identityId) ?? '' }));
  };
  return {
    async list(params) {
      const query = parseListParams(params, API_SESSION_FIELDS);
      const { items, totalCount } = await deps.apiSessions.list(query);
      return { items: await named(items), pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    async detail(id) {
      const session = await deps.apiSessions.findById(id);
      if (!session) throw notFound(id);
      return (await named([session]))[0] as ApiSessionListing;
    },
    async revoke(actor, id) {
      const session = await deps.apiSessions.findById(id);
      if (!session) throw notFound(id);
      deps.activity.forget(id);
      if (!(await deps.apiSessions.delete(id))) throw notFound(id);
      await deps.audit.record(actor, 'delete', 'api-session', id, { identityId: session.identityId });
    },
  };
}
