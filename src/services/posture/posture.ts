/**
 * Posture per API session (issue 15, item 6; docs/decisions/0029-posture-responses.md): storing what a client
 * reports (`POST /posture-response`, `/posture-response-bulk`), recording the session's TOTP answers, and deciding
 * posture checks for one session. The state is read once per call (two primary-key reads) and every check of the
 * call is decided from it by the one evaluator (evaluate.ts), so a listing of many services costs no more reads. With
 * the change feed the state is kept in memory per session, so a client's service list and sessions read nothing.
 */
import type { PostureCheck, PostureCheckTypeId, OsType } from '../../domain/posture-check.js';
import type { ClientInfo } from '../../domain/identity.js';
import { postureStateOf, type ApiSessionRef, type PostureSlot, type PostureState } from '../../domain/posture-response.js';
import type { PostureResponseRepository } from '../../persistence/repositories/posture-responses.js';
import type { ResourceRepository } from '../../persistence/resource-table.js';
import type { Clock } from '../../shared/clock.js';
import type { AuthContext } from '../authentication/request-auth.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createFeedCache } from '../change-feed/feed-cache.js';
import { isLimited, limitReached, MAX_POSTURE_SLOTS_PER_API_SESSION } from '../client-limits.js';
import { evaluateCheck, MFA_PROMPT_GRACE_SECONDS, type CheckOutcome } from './evaluate.js';
import type { SessionPosture } from './explain.js';
import { namedCheckIds, slotsOf, type PostureResponseInput } from './response-input.js';

/** The most responses one bulk request may carry (the wire schema holds the same bound). */
export const MAX_BULK_RESPONSES = 128;

/** A service whose MFA timer a submission changed (reference `postureResponseService`). */
export interface PostureTimerService {
  id: string;
  name: string;
  postureQueryType: 'MFA';
  timeout: number;
  timeoutRemaining: number;
}

/** One posture check as a client sees it for its session (reference `postureQuery`, without links). */
export interface PostureQuery extends CheckOutcome {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  queryType: PostureCheckTypeId;
  promptOnWake?: boolean;
  promptOnUnlock?: boolean;
  promptGracePeriodSeconds?: number;
  process?: { osType: OsType; path: string };
  processes?: Array<{ osType: OsType; path: string }>;
}

/** One service policy's checks for a session (reference `postureQueries`): it passes when all its checks pass. */
export interface PolicyPostureQueries {
  policyId: string;
  policyType: 'Dial' | 'Bind';
  isPassing: boolean;
  postureQueries: PostureQuery[];
}

export interface PostureService {
  /**
   * Stores responses for the caller's API session, all or none; 400 naming the field for the first one refused.
   * `bulk` names fields by their index (`2.id`). A non-administrator's session holds at most
   * MAX_POSTURE_SLOTS_PER_API_SESSION facts (409 API_SESSION_LIMIT_REACHED beyond).
   */
  submit(auth: AuthContext, responses: readonly PostureResponseInput[], options: { bulk: boolean }): Promise<{ services: PostureTimerService[] }>;
  /** Records that the caller's API session answered TOTP now (it restarts MFA checks' timers). */
  mfaAnswered(auth: Pick<AuthContext, 'kind' | 'session'>): Promise<void>;
  /** Everything the session has reported, read once; pass it to `evaluateCheck` for many checks. */
  stateOf(auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>): Promise<PostureState>;
  /** Whether one check passes for the session now. */
  isPassing(check: PostureCheck, auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>): Promise<boolean>;
  /** The checks as the session's posture queries, in the order given (one state read for all). */
  postureQueries(auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>, checks: readonly PostureCheck[]): Promise<PostureQuery[]>;
  /**
   * Each policy's posture queries and whether the policy passes (all its checks pass; a policy without checks
   * passes). A service is allowed when any policy of the type passes (facts §A6 "Posture gating").
   */
  policyPostureQueries(
    auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>,
    policies: ReadonlyArray<{ id: string; type: 'Dial' | 'Bind'; checks: readonly PostureCheck[] }>,
  ): Promise<PolicyPostureQueries[]>;
  /**
   * What each of an identity's newest live API sessions has reported (explain.ts judges checks on them); its client
   * info (`sdkInfo`, for MFA's legacy rule) is asked for only when it has a session.
   */
  identityPosture(identityId: string, sdkInfo: () => Promise<ClientInfo>): Promise<SessionPosture[]>;
}

/** The newest sessions of each kind an identity's posture is judged on: an identity has a few devices, not dozens. */
const SESSIONS_JUDGED = 10;

const sessionRef = (auth: Pick<AuthContext, 'kind' | 'session'>): ApiSessionRef => ({ kind: auth.kind, id: auth.session.id });

/** C SDKs before 0.25.0, and clients that do not say what they are, count as legacy endpoints (facts §B1, MFA). */
export function isLegacyEndpoint(sdkInfo: ClientInfo): boolean {
  const type = typeof sdkInfo.type === 'string' ? sdkInfo.type.toLowerCase() : '';
  const version = typeof sdkInfo.version === 'string' ? sdkInfo.version : '';
  if (type === '' || version === '') return true;
  if (!/(^|[^a-z])c(-sdk|$)|sdk-c/.test(type)) return false;
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  return major === 0 && minor < 25;
}

/** A check as a posture query, with the outcome for the session. */
export function postureQueryOf(check: PostureCheck, outcome: CheckOutcome): PostureQuery {
  const query: PostureQuery = { id: check.id, createdAt: check.createdAt, updatedAt: check.updatedAt, queryType: check.typeId, ...outcome };
  if (check.typeId === 'MFA') Object.assign(query, { promptOnWake: check.promptOnWake, promptOnUnlock: check.promptOnUnlock, promptGracePeriodSeconds: MFA_PROMPT_GRACE_SECONDS });
  if (check.typeId === 'PROCESS') query.process = { osType: check.process.osType, path: check.process.path };
  if (check.typeId === 'PROCESS_MULTI') query.processes = check.processes.map(({ osType, path }) => ({ osType, path }));
  return query;
}

/**
 * Query objects kept per check object and outcome: while a check is unchanged (the policy engine hands out the same
 * object) and a caller's outcome the same, the same object comes back, so what a view or an answer derives from it
 * may be kept with it. Never changed once made. A timed (MFA) check's outcome changes every second, so each check
 * keeps only its last few outcomes.
 */
const keptQueries = new WeakMap<PostureCheck, Map<string, PostureQuery>>();
const OUTCOMES_KEPT_PER_CHECK = 32;

function keptQuery(check: PostureCheck, outcome: CheckOutcome): PostureQuery {
  const key = `${outcome.isPassing}|${outcome.timeout}|${outcome.timeoutRemaining}|${outcome.timeoutAt?.getTime() ?? ''}`;
  let kept = keptQueries.get(check);
  if (!kept) keptQueries.set(check, (kept = new Map()));
  let query = kept.get(key);
  if (!query) {
    if (kept.size >= OUTCOMES_KEPT_PER_CHECK) kept.clear();
    kept.set(key, (query = postureQueryOf(check, outcome)));
  }
  return query;
}

/** API sessions whose reports a controller keeps in memory. */
const KEPT_SESSIONS = 100_000;

export function createPostureService(deps: {
  responses: PostureResponseRepository;
  checks: Pick<ResourceRepository<PostureCheck>, 'findById'>;
  clock: Clock;
  /** Keeps each session's reports in memory, dropped when any controller stores a new one (decision 0035). */
  feed?: ChangeFeed;
}): PostureService {
  const { responses, checks, clock, feed } = deps;
  // Values are wrapped: a session that reported nothing, or whose login answered no TOTP, is kept too.
  const keptSlots = feed ? createFeedCache<{ slots: PostureSlot[] }>({ feed, entity: 'posture-response', capacity: KEPT_SESSIONS }) : undefined;
  const keptLoginMfa = feed ? createFeedCache<{ at: Date | null }>({ feed, entity: 'oidc-session', capacity: KEPT_SESSIONS }) : undefined;
  const storedSlots = async (sessionId: string) => {
    const load = async () => ({ slots: await responses.slotsOf(sessionId) });
    return ((await keptSlots?.get(sessionId, load)) ?? (await load())).slots;
  };
  const loginMfaAt = async (sessionId: string) => {
    const load = async () => ({ at: await responses.oidcLoginMfaAt(sessionId) });
    return ((await keptLoginMfa?.get(sessionId, load)) ?? (await load())).at;
  };

  async function sessionState(kind: 'legacy' | 'oidc', sessionId: string, sdkInfo: ClientInfo): Promise<PostureState> {
    const [slots, loginMfa] = await Promise.all([storedSlots(sessionId), kind === 'oidc' ? loginMfaAt(sessionId) : Promise.resolve(null)]);
    return postureStateOf(slots, loginMfa, isLegacyEndpoint(sdkInfo));
  }
  const stateOf = (auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>) => sessionState(auth.kind, auth.session.id, auth.identity.sdkInfo);

  async function postureQueries(auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>, list: readonly PostureCheck[]): Promise<PostureQuery[]> {
    const state = await stateOf(auth);
    const now = clock.now();
    return list.map((check) => postureQueryOf(check, evaluateCheck(check, state, now)));
  }

  /** Refuses slots that would take the session past the most it may hold; replacing a held slot adds nothing. */
  async function checkRoomForSlots(sessionId: string, slots: readonly PostureSlot[]): Promise<void> {
    const held = new Set((await storedSlots(sessionId)).map(({ slot }) => slot));
    const after = new Set([...held, ...slots.map(({ slot }) => slot)]);
    if (after.size > MAX_POSTURE_SLOTS_PER_API_SESSION) {
      throw limitReached('posture responses', held.size, MAX_POSTURE_SLOTS_PER_API_SESSION, 'it may replace the responses it holds, not add more');
    }
  }

  return {
    async submit(auth, items, { bulk }) {
      // Every check named is read before anything is written; a refusal stores nothing.
      const named = new Map<string, PostureCheck>();
      for (const id of namedCheckIds(items)) {
        const check = await checks.findById(id);
        if (check) named.set(id, check);
      }
      const now = clock.now();
      const slots: PostureSlot[] = [];
      const typeIds: string[] = [];
      items.forEach((item, index) => {
        for (const slot of slotsOf(item, named, now, bulk ? `${index}.` : '')) {
          slots.push(slot);
          typeIds.push(item.typeId);
        }
      });
      if (slots.length > 0 && isLimited(auth)) await checkRoomForSlots(auth.session.id, slots);
      if (slots.length > 0) await responses.put(sessionRef(auth), slots, typeIds);
      // The services whose MFA timers a wake or unlock shortened need the caller's service policies; until the
      // client service list lands (issue 15, item 1) the answer lists none (docs/decisions/0029).
      return { services: [] };
    },
    async mfaAnswered(auth) {
      await responses.put(sessionRef(auth), [{ slot: 'MFA', facts: { typeId: 'MFA' }, receivedAt: clock.now() }], ['MFA']);
    },
    stateOf,
    async identityPosture(identityId, sdkInfo) {
      const sessions = await responses.sessionsOfIdentity(identityId, SESSIONS_JUDGED);
      if (sessions.length === 0) return [];
      const info = await sdkInfo();
      return Promise.all(sessions.map(async (session) => ({ session, state: await sessionState(session.kind, session.id, info) })));
    },
    async isPassing(check, auth) {
      return evaluateCheck(check, await stateOf(auth), clock.now()).isPassing;
    },
    postureQueries,
    async policyPostureQueries(auth, policies) {
      const state = await stateOf(auth);
      const now = clock.now();
      // Policies share checks (a network has few): each check is evaluated once per call, and the query object
      // for an outcome is the one handed out before (see keptQuery), so views built of it are built once too.
      const evaluated = new Map<string, PostureQuery>();
      const queryOf = (check: PostureCheck) => {
        let query = evaluated.get(check.id);
        if (!query) evaluated.set(check.id, (query = keptQuery(check, evaluateCheck(check, state, now))));
        return query;
      };
      return policies.map((policy) => {
        const queries = policy.checks.map(queryOf);
        return { policyId: policy.id, policyType: policy.type, isPassing: queries.every((query) => query.isPassing), postureQueries: queries };
      });
    },
  };
}
