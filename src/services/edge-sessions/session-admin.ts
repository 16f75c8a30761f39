/**
 * Sessions as administrators see them (the Management API's `/sessions`): every API session's sessions, paged and
 * filtered by the store (by identity, API session, service or type), with the names of their service and identity;
 * and ending one, whoever holds it, audited as the administrator's. The holder's SDK finds the session gone at its
 * next use, as when a policy no longer grants it.
 */
import type { Actor } from '../../domain/audit.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { ADMIN_EDGE_SESSION_FIELDS, type EdgeSessionRepository, type ListedEdgeSession } from '../../persistence/repositories/edge-sessions.js';
import type { AuditService } from '../audit/audit.js';
import type { ListPage } from '../list-page.js';

export interface EdgeSessionAdministration {
  list(params: RawListParams): Promise<ListPage<ListedEdgeSession>>;
  /** Ends session `id` (audited as `actor`'s); NOT_FOUND when there is none. */
  end(actor: Actor, id: string): Promise<void>;
}

export function createEdgeSessionAdministration(deps: { sessions: Pick<EdgeSessionRepository, 'listAll' | 'deleteById'>; audit: Pick<AuditService, 'record'> }): EdgeSessionAdministration {
  return {
    async list(params) {
      const query = parseListParams(params, ADMIN_EDGE_SESSION_FIELDS);
      const { items, totalCount } = await deps.sessions.listAll(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(ADMIN_EDGE_SESSION_FIELDS) };
    },
    async end(actor, id) {
      const ended = await deps.sessions.deleteById(id);
      if (!ended) throw new ApiError('NOT_FOUND', { message: `No session has the id '${id}'`, cause: { field: 'id', value: id } });
      await deps.audit.record(actor, 'delete', 'session', id, { identityId: ended.identityId, serviceId: ended.serviceId, type: ended.type });
    },
  };
}
