/**
 * Client API sessions (issue 15, items 2 and 3; docs/decisions/0031-edge-sessions.md): opening one for a service the
 * caller may dial or bind, reading and ending the caller's own, and the service's edge routers and terminators as a
 * client may read them. A session belongs to the caller's API session (legacy or OIDC): only that API session lists,
 * reads or ends it, and it goes when the API session does (the store's foreign keys, and the OIDC revocation).
 *
 * A policy or posture change that removes the right ends the sessions it affects lazily: each read of a session (a
 * list's page, a detail, a `session-token` check) asks the engine and the evaluator again, deletes the sessions whose
 * right is gone and never shows them. No sweep over all sessions runs on a policy change, so a change costs the same
 * whatever it reaches (decision 0025); a session nobody reads costs nothing until its API session ends.
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { NamedEdgeSession } from '../../domain/edge-session.js';
import type { PostureState } from '../../domain/posture-response.js';
import type { ServicePolicyType, Tags } from '../../domain/policy.js';
import type { NamedTerminator } from '../../domain/terminator.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { EDGE_ROUTER_FIELDS } from '../../persistence/repositories/edge-routers.js';
import { EDGE_SESSION_FIELDS, type EdgeSessionRepository } from '../../persistence/repositories/edge-sessions.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { TerminatorService } from '../authorization/terminators.js';
import { checkClientTags, isLimited, limitReached, MAX_SESSIONS_PER_API_SESSION } from '../client-limits.js';
import type { ListPage } from '../list-page.js';
import { TokenRejected } from '../oidc-provider/oidc-tokens.js';
import type { PostureService } from '../posture/index.js';
import { refusalError, type Caller, type SessionAccess } from './session-access.js';
import type { SessionTokens } from './session-tokens.js';

/** How many edge routers a session names (the reference's cap); a client pages the rest from the service's list. */
export const SESSION_EDGE_ROUTER_LIMIT = 25;

/** What `POST /sessions` takes. */
export interface EdgeSessionInput {
  serviceId: string;
  type: ServicePolicyType;
  tags?: Tags | null;
}

/** A session as the client API shows it: the session, its token signed now, and the routers to reach it through. */
export interface EdgeSessionView {
  session: NamedEdgeSession;
  token: string;
  edgeRouters: EdgeRouter[];
}

export interface EdgeSessionService {
  /**
   * Opens a session of `type` for the service, or answers the API session's open one for the same service and type
   * (created once, as the reference does). 404 when the caller may not see the service, 403 when no policy of the
   * type grants it or the posture of every granting policy fails, 400 NO_EDGE_ROUTERS_AVAILABLE when no edge router
   * serves both the identity and the service. A non-administrator's `tags` and session count are bounded
   * (services/client-limits.ts): 400 naming `tags`, 409 API_SESSION_LIMIT_REACHED.
   */
  create(caller: Caller, input: EdgeSessionInput): Promise<EdgeSessionView>;
  /** One page of the caller's API session's sessions; those whose right is gone are ended, not shown. */
  list(caller: Caller, params: RawListParams): Promise<ListPage<EdgeSessionView>>;
  /** One of the caller's API session's sessions; 404 for any other, and for one whose right is gone (it is ended). */
  get(caller: Caller, id: string): Promise<EdgeSessionView>;
  /** Ends one of the caller's API session's sessions; 404 for any other. */
  delete(caller: Caller, id: string): Promise<void>;
  /**
   * A page of the edge routers the caller may reach the service through; 404 when it may not see the service. With
   * `sessionToken`, the token must be one of the caller's API session's live sessions of this service, else 401.
   */
  serviceEdgeRouters(caller: Caller, serviceId: string, params: RawListParams, sessionToken?: string): Promise<ListPage<EdgeRouter>>;
  /** A page of the service's terminators; 404 when the caller may not see the service. */
  serviceTerminators(caller: Caller, serviceId: string, params: RawListParams): Promise<ListPage<NamedTerminator>>;
}

export function createEdgeSessionService(deps: {
  sessions: EdgeSessionRepository;
  access: SessionAccess;
  posture: Pick<PostureService, 'stateOf'>;
  terminators: Pick<TerminatorService, 'listOfService'>;
  /** Absent without an edge section, where no client API is served. */
  tokens: SessionTokens | undefined;
  /** How long a session token is valid (the access token lifetime, which the published keys cover). */
  tokenLifetimeMs: number;
  clock: Clock;
}): EdgeSessionService {
  const { sessions, access, clock } = deps;
  const routerQuery = parseListParams({ limit: SESSION_EDGE_ROUTER_LIMIT, sort: 'name' }, EDGE_ROUTER_FIELDS);

  const notFound = (id: string) => new ApiError('NOT_FOUND', { message: `No session has the id '${id}'`, cause: { field: 'id', value: id } });
  const unauthorizedToken = (reason: string) =>
    new ApiError('UNAUTHORIZED', { message: `The session-token header is not accepted: ${reason}`, cause: { field: 'session-token', reason } });

  /** The API session's posture, read at most once per request. */
  function postureOnce(caller: Caller): () => Promise<PostureState> {
    let state: Promise<PostureState> | undefined;
    return () => (state ??= deps.posture.stateOf(caller));
  }

  /** The session's token signed now, valid for the token lifetime. */
  function signed(session: NamedEdgeSession): Promise<string> {
    if (!deps.tokens) throw new Error('session tokens need the edge section (the OIDC signer)');
    const now = clock.now();
    return deps.tokens.sign(session, now, new Date(now.getTime() + deps.tokenLifetimeMs));
  }

  async function view(caller: Caller, session: NamedEdgeSession): Promise<EdgeSessionView> {
    // A service deleted since the session was read took the session with it; this answer shows no routers for it.
    const service = await access.service(caller, session.serviceId);
    const routers = service ? await access.routers(caller, service, routerQuery) : { items: [] };
    return { session, token: await signed(session), edgeRouters: routers.items };
  }

  /** Ends the sessions among `found` whose right is gone; their ids. */
  async function endLost(caller: Caller, found: readonly NamedEdgeSession[], state: () => Promise<PostureState>): Promise<Set<string>> {
    const lost: string[] = [];
    for (const session of found) {
      if (await access.refusal(caller, session.serviceId, session.type, state)) lost.push(session.id);
    }
    if (lost.length > 0) await sessions.delete(caller.session.id, lost);
    return new Set(lost);
  }

  /** The caller's API session's session `id`, still held; 404 otherwise (ending it when its right is gone). */
  async function held(caller: Caller, id: string): Promise<NamedEdgeSession> {
    const session = await sessions.findById(id);
    if (!session || session.apiSessionId !== caller.session.id) throw notFound(id);
    if ((await endLost(caller, [session], postureOnce(caller))).size > 0) throw notFound(id);
    return session;
  }

  return {
    async create(caller, input) {
      if (isLimited(caller)) checkClientTags(input.tags);
      // A granted right implies the service is visible, so visibility is only asked to word a refusal: 404 for a
      // service the caller may not see, 403 for one it sees but may not open this way.
      const service = await access.service(caller, input.serviceId);
      const refusal = service ? await access.refusal(caller, service.id, input.type, postureOnce(caller)) : undefined;
      if (!service || refusal) {
        await access.visibleService(caller, input.serviceId);
        throw refusalError(refusal ?? { reason: 'policy' }, input.serviceId, input.type);
      }
      const routers = await access.routers(caller, service, routerQuery);
      if (routers.totalCount === 0) {
        throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE', {
          message: `No edge router is assigned to both this identity and the service '${service.id}'`,
          cause: { field: 'serviceId', reason: 'no edge router policy and service edge router policy share a router', value: service.id },
        });
      }
      if (isLimited(caller)) await checkRoomForSession(caller, service.id, input.type);
      const now = clock.now();
      const session = await sessions.open({
        id: newEntityId(),
        apiSessionId: caller.session.id,
        apiSessionKind: caller.kind,
        identityId: caller.identity.id,
        serviceId: service.id,
        type: input.type,
        tags: input.tags ?? {},
        createdAt: now,
        updatedAt: now,
      }, service.name);
      // The service, or the caller's API session, was deleted while the request ran.
      if (!session) {
        if (!(await access.service(caller, service.id))) throw new ApiError('NOT_FOUND', { message: `No service has the id '${service.id}'`, cause: { field: 'serviceId', value: service.id } });
        throw new ApiError('UNAUTHORIZED', { message: 'The API session ended while the session was being opened', cause: { field: 'session', reason: 'ended' } });
      }
      return { session, token: await signed(session), edgeRouters: routers.items };
    },

    async list(caller, params) {
      const query = parseListParams(params, EDGE_SESSION_FIELDS);
      const state = postureOnce(caller);
      // Each round that finds a session whose right is gone ends it and reads the page again, so the page and its
      // count hold only live sessions. Every round but the last deletes at least one row, so the loop ends.
      for (;;) {
        const page = await sessions.listOfApiSession(caller.session.id, query);
        if ((await endLost(caller, page.items, state)).size > 0) continue;
        const items: EdgeSessionView[] = [];
        for (const session of page.items) items.push(await view(caller, session));
        return { items, pagination: { limit: query.limit, offset: query.offset, totalCount: page.totalCount }, filterableFields: Object.keys(EDGE_SESSION_FIELDS) };
      }
    },

    async get(caller, id) {
      return view(caller, await held(caller, id));
    },

    async delete(caller, id) {
      if ((await sessions.delete(caller.session.id, [id])) === 0) throw notFound(id);
    },

    async serviceEdgeRouters(caller, serviceId, params, sessionToken) {
      if (sessionToken !== undefined) await checkSessionToken(caller, serviceId, sessionToken);
      const service = await access.visibleService(caller, serviceId);
      const query = parseListParams(params, EDGE_ROUTER_FIELDS);
      const { items, totalCount } = await access.routers(caller, service, query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(EDGE_ROUTER_FIELDS) };
    },

    async serviceTerminators(caller, serviceId, params) {
      await access.visibleService(caller, serviceId);
      return deps.terminators.listOfService(serviceId, params);
    },
  };

  /**
   * Refuses a new session when the caller's API session holds the most it may (decision 0058); opening one it holds
   * already adds nothing and passes. Concurrent opens may each see room: the overshoot is bounded by the requests
   * one client has in flight.
   */
  async function checkRoomForSession(caller: Caller, serviceId: string, type: ServicePolicyType): Promise<void> {
    const { count, holdsThis } = await sessions.heldBy(caller.session.id, serviceId, type);
    if (!holdsThis && count >= MAX_SESSIONS_PER_API_SESSION) {
      throw limitReached('sessions', count, MAX_SESSIONS_PER_API_SESSION, 'delete sessions it no longer uses (DELETE /sessions/{id})');
    }
  }

  /**
   * The `session-token` header of `GET /services/{id}/edge-routers`: a session token this controller signed, unexpired,
   * for this service, of the caller's own API session, whose session is still held. 401 naming the reason otherwise
   * (the reference answers "not authorized" for any token that does not validate).
   */
  async function checkSessionToken(caller: Caller, serviceId: string, token: string): Promise<void> {
    if (!deps.tokens) throw unauthorizedToken('no session tokens are issued here');
    const claims = await deps.tokens.verify(token, clock.now()).catch((error: unknown) => {
      if (error instanceof TokenRejected) throw unauthorizedToken(error.reason === 'expired' ? 'the token has expired' : 'the token is not valid');
      throw error;
    });
    if (claims.sub !== serviceId) throw unauthorizedToken('the token is for another service');
    if (claims.z_iid !== caller.identity.id || claims.z_asid !== caller.session.id) throw unauthorizedToken('the token belongs to another API session');
    const session = await sessions.findById(claims.jti);
    if (!session || session.apiSessionId !== caller.session.id || session.serviceId !== serviceId || session.type !== claims.z_st) {
      throw unauthorizedToken('the session has ended');
    }
    if ((await endLost(caller, [session], postureOnce(caller))).size > 0) throw unauthorizedToken('the session has ended');
  }
}
