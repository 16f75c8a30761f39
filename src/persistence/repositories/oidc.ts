/**
 * The OIDC provider's store: authorization requests (while a secondary factor is owed), sessions, refresh tokens and
 * the refusals of codes. Refresh tokens are looked up by their SHA-256, the secrets themselves never stored; a code is
 * sealed and stored only as the session it opens (decision 0046). State changes that must happen once (a code
 * redeemed, a refresh token rotated) are conditional writes whose row count tells the caller whether it won.
 */
import { sql } from 'kysely';
import { atomically } from '../unit-of-work.js';
import { perColumnSet, prepareQuery, preparedInsert, writeAtomically } from '../prepared-query.js';
import type { OidcAuthRequest, OidcRefreshToken, OidcSession } from '../../domain/oidc.js';
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import type { OidcAuthRequestsTable, OidcRefreshTokensTable, OidcSessionsTable } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';
import { isForeignKeyViolation } from '../store-errors.js';

/** A rotated refresh token's successor: what the grant drew for it; its session is the rotated token's. */
export interface RefreshSuccessor {
  id: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** The successor's value sealed for the grace window (decision 0012). */
  sealed: string;
}

export interface OidcRepository {
  /**
   * Stores a request at its primary login (partially_authenticated or authenticated): before that it lives only in
   * its sealed id. False when a request with that key is stored already (the sealed id was logged in before).
   */
  insertAuthRequest(request: OidcAuthRequest): Promise<boolean>;
  findAuthRequest(id: string): Promise<OidcAuthRequest | undefined>;
  /**
   * authenticated -> code_issued (the controller's callback after the last secondary factor), in one statement that
   * also reads the request back; undefined when the request is not stored or was no longer authenticated.
   */
  issueCode(id: string): Promise<OidcAuthRequest | undefined>;
  /**
   * A secondary factor answered on a partially authenticated request: records the remaining factors and the amr;
   * with none remaining, the request moves to authenticated. Compare-and-set on the outstanding factors, so two
   * answers racing cannot both count; false when the request changed first.
   */
  answerFactor(id: string, expected: OutstandingFactor[], change: { amr: string[]; outstanding: OutstandingFactor[] }): Promise<boolean>;
  /**
   * Redeems an authorization code (decision 0046): stores the session it opens and, with offline_access, its first
   * refresh token, atomically, unless a session with that id exists (`spent`: the code was redeemed before, on any
   * controller), else the code was refused `maxRefusals` times (`exhausted`), or its identity is gone (`no-identity`);
   * then nothing is written.
   */
  redeemCode(
    session: OidcSession,
    refresh: { record: OidcRefreshToken; hash: string } | undefined,
    maxRefusals: number,
  ): Promise<'redeemed' | 'spent' | 'exhausted' | 'no-identity'>;
  /** Counts a refused token request made with the code of session `sessionId` (kept until `expiresAt`); how many so far. */
  countCodeRefusal(sessionId: string, expiresAt: Date): Promise<number>;
  /** Removes requests, and the refusal counts of codes, that expired before `before`. */
  deleteExpiredAuthRequests(before: Date): Promise<void>;

  insertSession(session: OidcSession): Promise<void>;
  findSession(id: string): Promise<OidcSession | undefined>;
  /** Marks the session revoked and revokes every refresh token of it. */
  revokeSession(id: string, at: Date): Promise<void>;

  insertRefreshToken(token: OidcRefreshToken, tokenHash: string): Promise<void>;
  findRefreshToken(tokenHash: string): Promise<OidcRefreshToken | undefined>;
  /** A refresh token and its session, read together (one statement: the refresh grant's first read). */
  findRefreshTokenWithSession(tokenHash: string): Promise<{ token: OidcRefreshToken; session: OidcSession } | undefined>;
  /**
   * The refresh grant's read and rotation together (decision 0052): reads the token with its session and, when
   * `refreshRefusal` (domain/oidc.ts) finds nothing against them at `at` for `clientId`, rotates the token to `successor`, stored for the same
   * session. One statement on PostgreSQL, so one round trip; on SQLite the read and then the rotation. `rotated` says
   * whether this call rotated the token (false also when another request did it first); undefined when no token has
   * that hash.
   */
  redeemRefreshToken(
    tokenHash: string,
    at: Date,
    clientId: string | undefined,
    successor: RefreshSuccessor,
  ): Promise<{ token: OidcRefreshToken; session: OidcSession; rotated: boolean } | undefined>;
}

function authRequestFromRow(row: AuthRequestRow): OidcAuthRequest {
  return {
    id: row.id,
    handle: '',
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    scope: row.scope,
    state: row.state,
    nonce: row.nonce,
    codeChallenge: row.code_challenge,
    method: 'S256',
    issuer: row.issuer,
    identityId: row.identity_id,
    amr: parseJson<string[]>(row.amr),
    status: row.status,
    outstanding: parseJson<OutstandingFactor[]>(row.outstanding_factors),
    codeExpiresAt: toDateOrNull(row.code_expires_at),
    apiSessionId: row.api_session_id,
    authTime: toDateOrNull(row.auth_time),
    configTypes: parseJson<string[]>(row.config_types),
    authenticatorId: row.authenticator_id,
    ipAddress: row.ip_address,
    caId: row.ca_id,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
  };
}

function sessionFromRow(row: OidcSessionsTable): OidcSession {
  return {
    id: row.id,
    identityId: row.identity_id,
    clientId: row.client_id,
    issuer: row.issuer,
    scope: row.scope,
    amr: parseJson<string[]>(row.amr),
    authTime: toDate(row.auth_time),
    configTypes: parseJson<string[]>(row.config_types),
    revokedAt: toDateOrNull(row.revoked_at),
    authenticatorId: row.authenticator_id,
    ipAddress: row.ip_address,
    caId: row.ca_id,
    createdAt: toDate(row.created_at),
  };
}

function refreshFromRow(row: OidcRefreshTokensTable): OidcRefreshToken {
  return {
    id: row.id,
    sessionId: row.session_id,
    status: row.status,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    rotatedAt: toDateOrNull(row.rotated_at),
    successorSealed: row.successor_sealed,
  };
}

// The statements of every PKCE login, prepared (built once; named on PostgreSQL: decision 0043). They name their
// columns, as prepared statements must.
const AUTH_REQUEST_COLUMNS = [
  'id',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'method',
  'issuer',
  'identity_id',
  'amr',
  'status',
  'outstanding_factors',
  'code_hash',
  'code_expires_at',
  'api_session_id',
  'auth_time',
  'config_types',
  'code_attempts',
  'authenticator_id',
  'ip_address',
  'ca_id',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof OidcAuthRequestsTable)[];
type AuthRequestRow = Pick<OidcAuthRequestsTable, (typeof AUTH_REQUEST_COLUMNS)[number]>;

// Two logins racing on one sealed id: the first stores it, the second learns it lost.
const insertAuthRequestRow = preparedInsert('oidc_auth_requests', (insert) => insert.onConflict((conflict) => conflict.column('id').doNothing()));
const insertSessionRow = preparedInsert('oidc_sessions');
const insertRefreshRow = preparedInsert('oidc_refresh_tokens');
const findAuthRequestById = prepareQuery<{ id: string }, AuthRequestRow>((db, param) =>
  db.selectFrom('oidc_auth_requests').select(AUTH_REQUEST_COLUMNS).where('id', '=', param('id')),
);
const issueCodeOf = prepareQuery<{ id: string }, AuthRequestRow>((db, param) =>
  db
    .updateTable('oidc_auth_requests')
    .set({ status: 'code_issued' })
    .where('id', '=', param('id'))
    .where('status', '=', 'authenticated')
    .returning(AUTH_REQUEST_COLUMNS),
);

const columnList = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)));
const valueList = (param: (name: string) => unknown, prefix: string, names: readonly string[]) => sql.join(names.map((name) => sql`${param(`${prefix}${name}`)}`));

/**
 * The session a code opens, inserted unless one with its id exists (the code was redeemed) or its code was refused
 * `max` times: the whole redemption in one statement, so two controllers redeeming one code at once store one session.
 */
const sessionOfCode = (sessionColumns: readonly string[], param: (name: string) => unknown) => sql`insert into oidc_sessions (${columnList(sessionColumns)})
  select ${valueList(param, 's_', sessionColumns)}
  where not exists (select 1 from oidc_code_refusals where session_id = ${param('s_id')} and refusals >= ${param('max')})
  on conflict (id) do nothing`;

/**
 * The session insert by itself (its row count tells whether the code was redeemed): SQLite's first statement of a
 * redemption, and PostgreSQL's whole redemption when no refresh token comes with it.
 */
const insertSessionOfCode = perColumnSet(([sessionColumns = []]) =>
  prepareQuery<Record<string, unknown>>((store, param) => ({ compile: () => sessionOfCode(sessionColumns, param).compile(store) })),
);

/**
 * PostgreSQL with a refresh token: the redemption as one statement, the session and then its first refresh token
 * inserted from what it returned, so both or neither are written. Its row count answers whether the code was
 * redeemed (the refresh row is written exactly when the session was), so no result set is built, sent or parsed.
 */
const redeemWithRefreshToken = perColumnSet(([sessionColumns = [], refreshColumns = []]) =>
  prepareQuery<Record<string, unknown>>((store, param) => {
    const redeem = sql`with session as (${sessionOfCode(sessionColumns, param)} returning id)
      insert into oidc_refresh_tokens (${columnList(refreshColumns)}) select ${valueList(param, 'r_', refreshColumns)} from session`;
    return { compile: () => redeem.compile(store) };
  }),
);

// A refresh grant's statements, prepared as the login's are (decision 0050): the token read with its session, and
// its rotation.
const REFRESH_COLUMNS = ['id', 'session_id', 'token_hash', 'status', 'created_at', 'expires_at', 'rotated_at', 'successor_sealed'] as const satisfies readonly (keyof OidcRefreshTokensTable)[];
const findRefreshWithSession = prepareQuery<{ hash: string }, RefreshWithSessionRow>((db, param) =>
  db
    .selectFrom('oidc_refresh_tokens as r')
    .innerJoin('oidc_sessions as s', 's.id', 'r.session_id')
    .select(REFRESH_COLUMNS.map((column) => `r.${column}` as const))
    .select([
      's.identity_id as s_identity_id',
      's.client_id as s_client_id',
      's.issuer as s_issuer',
      's.scope as s_scope',
      's.amr as s_amr',
      's.auth_time as s_auth_time',
      's.config_types as s_config_types',
      's.revoked_at as s_revoked_at',
      's.authenticator_id as s_authenticator_id',
      's.ip_address as s_ip_address',
      's.ca_id as s_ca_id',
      's.created_at as s_created_at',
    ])
    .where('r.token_hash', '=', param('hash')),
);
const SESSION_COLUMNS = ['identity_id', 'client_id', 'issuer', 'scope', 'amr', 'auth_time', 'config_types', 'revoked_at', 'authenticator_id', 'ip_address', 'ca_id', 'created_at'] as const satisfies readonly (keyof OidcSessionsTable)[];
/**
 * PostgreSQL: the refresh grant's read and rotation as one statement (decision 0052). `found` reads the token with its
 * session; `rotated` rotates it only when refreshRefusal finds nothing against it (the same rules in SQL: times are stored as
 * fixed-width ISO text, so they compare as text); the successor is inserted for the rotated token's session. Under
 * READ COMMITTED a concurrent rotation makes the update re-check `status` on the newest row version and skip it.
 */
const redeemRefreshInOneStatement = prepareQuery<Record<string, unknown>, RefreshWithSessionRow & { rotated: string | number }>((store, param) => {
  const foundColumns = sql.join([
    ...REFRESH_COLUMNS.map((column) => sql.ref(`r.${column}`)),
    ...SESSION_COLUMNS.map((column) => sql`${sql.ref(`s.${column}`)} as ${sql.ref(`s_${column}`)}`),
  ]);
  const statement = sql`with found as (
      select ${foundColumns} from oidc_refresh_tokens r join oidc_sessions s on s.id = r.session_id where r.token_hash = ${param('hash')}
    ), rotated as (
      update oidc_refresh_tokens set status = 'rotated', rotated_at = ${param('rotatedAt')}, successor_sealed = ${param('sealed')}
      from found
      where oidc_refresh_tokens.token_hash = ${param('hash')} and oidc_refresh_tokens.status = 'active'
        and oidc_refresh_tokens.expires_at > ${param('rotatedAt')} and found.s_revoked_at is null and found.s_client_id = ${param('clientId')}
      returning oidc_refresh_tokens.session_id
    ), successor as (
      insert into oidc_refresh_tokens (id, session_id, token_hash, status, created_at, expires_at)
      select ${param('nextId')}, session_id, ${param('nextHash')}, 'active', ${param('nextCreatedAt')}, ${param('nextExpiresAt')} from rotated
      returning token_hash
    )
    select found.*, (select count(*) from successor) as rotated from found`;
  return { compile: () => statement.compile(store) };
});

type RefreshWithSessionRow = OidcRefreshTokensTable & {
  [K in Exclude<keyof OidcSessionsTable, 'id'> as `s_${K}`]: OidcSessionsTable[K];
};

/**
 * SQLite (and a transaction on either store): the rotation, made only when refreshRefusal finds nothing against the
 * token, as the PostgreSQL statement above; its row count tells whether this request won.
 */
const rotateRefreshIfRedeemable = prepareQuery<{ hash: string; rotatedAt: string; sealed: string; clientId: string | null }>((db, param) =>
  db
    .updateTable('oidc_refresh_tokens')
    .set({ status: 'rotated', rotated_at: param('rotatedAt'), successor_sealed: param('sealed') })
    .where('token_hash', '=', param('hash'))
    .where('status', '=', 'active')
    .where('expires_at', '>', param('rotatedAt'))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('oidc_sessions as s')
          .select('s.id')
          .whereRef('s.id', '=', 'oidc_refresh_tokens.session_id')
          .where('s.revoked_at', 'is', null)
          .where('s.client_id', '=', param('clientId') as string),
      ),
    ),
);
/** The successor of the token rotated by the statement above, for the same session. */
const insertSuccessorOf = prepareQuery<{ hash: string; nextId: string; nextHash: string; nextCreatedAt: string; nextExpiresAt: string }>((db, param) =>
  db
    .insertInto('oidc_refresh_tokens')
    .columns(['id', 'session_id', 'token_hash', 'status', 'created_at', 'expires_at'])
    .expression(
      db
        .selectFrom('oidc_refresh_tokens')
        .select([
          sql<string>`${param('nextId')}`.as('id'),
          'session_id',
          sql<string>`${param('nextHash')}`.as('token_hash'),
          sql<string>`'active'`.as('status'),
          sql<string>`${param('nextCreatedAt')}`.as('created_at'),
          sql<string>`${param('nextExpiresAt')}`.as('expires_at'),
        ])
        .where('token_hash', '=', param('hash')),
    ),
);

export function createOidcRepository(database: Database): OidcRepository {
  const { db } = database;
  return {
    async redeemCode(session, refresh, maxRefusals) {
      const sessionValues = sessionRow(session);
      const refreshValues = refresh && refreshRow(refresh.record, refresh.hash);
      let redeemed: boolean;
      try {
        if (database.dialect === 'postgres' && !db.isTransaction) {
          // One statement (data-modifying CTEs): a round trip, and both rows or neither.
          const statement = refreshValues ? redeemWithRefreshToken(Object.keys(sessionValues), Object.keys(refreshValues)) : insertSessionOfCode(Object.keys(sessionValues));
          const result = await statement(db, { ...prefixed('s_', sessionValues), ...(refreshValues ? prefixed('r_', refreshValues) : {}), max: maxRefusals });
          redeemed = Number(result.numAffectedRows ?? 0n) > 0;
        } else {
          // SQLite: both inserts in one transaction, on a store in a file off the event loop (sqlite-writer.ts).
          const insertSession = insertSessionOfCode(Object.keys(sessionValues));
          const [session] = await writeAtomically(db, [
            { query: insertSession, values: { ...prefixed('s_', sessionValues), max: maxRefusals }, stopUnlessChanged: true },
            ...(refreshValues ? [{ query: insertRefreshRow.queryFor(refreshValues), values: refreshValues as unknown as Record<string, unknown> }] : []),
          ]);
          redeemed = (session?.changes ?? 0) > 0;
        }
      } catch (error) {
        // The identity was deleted since the login (its sessions go with it): there is nobody left to open one for.
        if (isForeignKeyViolation(error)) return 'no-identity';
        throw error;
      }
      if (redeemed) {
        // A signal only (the live status stream re-reads the identity's presence), so not in the login's one statement.
        await recordChange(database, 'identity-presence', session.identityId);
        return 'redeemed';
      }
      // Refused: only now is it worth a read to say why. A redeemed code is spent however often it was refused since.
      const stored = await db.selectFrom('oidc_sessions').select('id').where('id', '=', session.id).executeTakeFirst();
      return stored ? 'spent' : 'exhausted';
    },
    async countCodeRefusal(sessionId, expiresAt) {
      const row = await db
        .insertInto('oidc_code_refusals')
        .values({ session_id: sessionId, refusals: 1, expires_at: toIso(expiresAt) })
        .onConflict((conflict) => conflict.column('session_id').doUpdateSet({ refusals: sql<number>`oidc_code_refusals.refusals + 1` }))
        .returning('refusals')
        .executeTakeFirstOrThrow();
      return Number(row.refusals);
    },
    async insertAuthRequest(r) {
      if (r.status === 'started') throw new Error('a started auth request lives in its sealed id, not in the store');
      const result = await insertAuthRequestRow(db, {
        id: r.id,
        client_id: r.clientId,
        redirect_uri: r.redirectUri,
        scope: r.scope,
        state: r.state,
        nonce: r.nonce,
        code_challenge: r.codeChallenge,
        method: r.method,
        issuer: r.issuer,
        identity_id: r.identityId,
        amr: JSON.stringify(r.amr),
        status: r.status,
        outstanding_factors: JSON.stringify(r.outstanding),
        code_hash: null,
        code_expires_at: null,
        api_session_id: r.apiSessionId,
        auth_time: toIsoOrNull(r.authTime),
        config_types: JSON.stringify(r.configTypes),
        code_attempts: 0,
        authenticator_id: r.authenticatorId ?? null,
        ip_address: r.ipAddress ?? null,
        ca_id: r.caId ?? null,
        created_at: toIso(r.createdAt),
        expires_at: toIso(r.expiresAt),
      });
      return Number(result.numAffectedRows ?? 0n) > 0;
    },
    async findAuthRequest(id) {
      const [row] = (await findAuthRequestById(db, { id })).rows;
      return row && authRequestFromRow(row);
    },
    async issueCode(id) {
      const [row] = (await issueCodeOf(db, { id })).rows;
      return row && authRequestFromRow(row);
    },
    async answerFactor(id, expected, change) {
      const result = await db
        .updateTable('oidc_auth_requests')
        .set({
          amr: JSON.stringify(change.amr),
          outstanding_factors: JSON.stringify(change.outstanding),
          ...(change.outstanding.length === 0 ? { status: 'authenticated' as const } : {}),
        })
        .where('id', '=', id)
        .where('status', '=', 'partially_authenticated')
        .where('outstanding_factors', '=', JSON.stringify(expected))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async deleteExpiredAuthRequests(before) {
      // A replayed code finds its session, not its request (decision 0046): an expired request has nothing left to say.
      await db.deleteFrom('oidc_auth_requests').where('expires_at', '<', toIso(before)).execute();
      await db.deleteFrom('oidc_code_refusals').where('expires_at', '<', toIso(before)).execute();
    },

    async insertSession(s) {
      await atomically(db, async (trx) => {
        await insertSessionRow(trx, sessionRow(s));
        await recordChange({ ...database, db: trx }, 'identity-presence', s.identityId);
      });
    },
    async findSession(id) {
      const row = await db.selectFrom('oidc_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && sessionFromRow(row);
    },
    async revokeSession(id, at) {
      await atomically(db, async (trx) => {
        const revoked = await trx.updateTable('oidc_sessions').set({ revoked_at: toIso(at) }).where('id', '=', id).where('revoked_at', 'is', null).returning('identity_id').executeTakeFirst();
        await trx.updateTable('oidc_refresh_tokens').set({ status: 'revoked' }).where('session_id', '=', id).execute();
        // A revoked session is kept (its tokens must keep failing); what its client reported goes (migration 0015).
        await trx.deleteFrom('posture_responses').where('oidc_session_id', '=', id).execute();
        // Its client API sessions end with it, for every kind of revocation (migration 0016).
        await trx.deleteFrom('edge_sessions').where('oidc_session_id', '=', id).execute();
        // Every controller drops what it keeps of the session (the authentication cache) within the feed's bound.
        await recordChange({ ...database, db: trx }, 'oidc-session', id);
        if (revoked) await recordChange({ ...database, db: trx }, 'identity-presence', revoked.identity_id);
      });
    },

    async insertRefreshToken(t, tokenHash) {
      await insertRefreshRow(db, refreshRow(t, tokenHash));
    },
    async findRefreshToken(tokenHash) {
      const row = await db.selectFrom('oidc_refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && refreshFromRow(row);
    },
    async findRefreshTokenWithSession(tokenHash) {
      const [row] = (await findRefreshWithSession(db, { hash: tokenHash })).rows;
      return row && refreshWithSessionFromRow(row);
    },
    async redeemRefreshToken(tokenHash, at, clientId, successor) {
      if (database.dialect === 'postgres' && !db.isTransaction) {
        const values = {
          hash: tokenHash,
          rotatedAt: toIso(at),
          sealed: successor.sealed,
          clientId: clientId ?? null,
          nextId: successor.id,
          nextHash: successor.tokenHash,
          nextCreatedAt: toIso(successor.createdAt),
          nextExpiresAt: toIso(successor.expiresAt),
        };
        const [row] = (await redeemRefreshInOneStatement(db, values)).rows;
        // count(*) arrives as a string (bigint).
        return row && { ...refreshWithSessionFromRow(row), rotated: Number(row.rotated) > 0 };
      }
      // The read and the rotation in one transaction: on SQLite in a file, off the event loop (sqlite-writer.ts).
      const rotatedAt = toIso(at);
      const [found, , successorInserted] = await writeAtomically(db, [
        { query: findRefreshWithSession, values: { hash: tokenHash }, stopUnlessChanged: true },
        { query: rotateRefreshIfRedeemable, values: { hash: tokenHash, rotatedAt, sealed: successor.sealed, clientId: clientId ?? null }, stopUnlessChanged: true },
        {
          query: insertSuccessorOf,
          values: { hash: tokenHash, nextId: successor.id, nextHash: successor.tokenHash, nextCreatedAt: toIso(successor.createdAt), nextExpiresAt: toIso(successor.expiresAt) },
        },
      ]);
      const row = found?.rows[0] as RefreshWithSessionRow | undefined;
      return row && { ...refreshWithSessionFromRow(row), rotated: successorInserted !== undefined };
    },
  };
}

/** A refresh token and its session from a row that holds both (the session's columns prefixed `s_`). */
function refreshWithSessionFromRow(row: RefreshWithSessionRow): { token: OidcRefreshToken; session: OidcSession } {
  const session: OidcSessionsTable = {
    id: row.session_id,
    identity_id: row.s_identity_id,
    client_id: row.s_client_id,
    issuer: row.s_issuer,
    scope: row.s_scope,
    amr: row.s_amr,
    auth_time: row.s_auth_time,
    config_types: row.s_config_types,
    revoked_at: row.s_revoked_at,
    authenticator_id: row.s_authenticator_id,
    ip_address: row.s_ip_address,
    ca_id: row.s_ca_id,
    created_at: row.s_created_at,
  };
  return { token: refreshFromRow(row), session: sessionFromRow(session) };
}

function sessionRow(s: OidcSession): OidcSessionsTable {
  return {
    id: s.id,
    identity_id: s.identityId,
    client_id: s.clientId,
    issuer: s.issuer,
    scope: s.scope,
    amr: JSON.stringify(s.amr),
    auth_time: toIso(s.authTime),
    config_types: JSON.stringify(s.configTypes),
    revoked_at: toIsoOrNull(s.revokedAt),
    authenticator_id: s.authenticatorId ?? null,
    ip_address: s.ipAddress ?? null,
    ca_id: s.caId ?? null,
    created_at: toIso(s.createdAt),
  };
}

/** `row`'s values under `prefix` + column: the values of one table in a statement that writes several. */
function prefixed(prefix: string, row: object): Record<string, unknown> {
  // The names are made once per prefix and column: a name made anew on every login is a new string to intern.
  let names = prefixedNames.get(prefix);
  if (names === undefined) prefixedNames.set(prefix, (names = new Map()));
  const values: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    let name = names.get(column);
    if (name === undefined) names.set(column, (name = `${prefix}${column}`));
    values[name] = value;
  }
  return values;
}
const prefixedNames = new Map<string, Map<string, string>>();

function refreshRow(t: OidcRefreshToken, tokenHash: string): OidcRefreshTokensTable {
  return {
    id: t.id,
    session_id: t.sessionId,
    token_hash: tokenHash,
    status: t.status,
    created_at: toIso(t.createdAt),
    expires_at: toIso(t.expiresAt),
    rotated_at: toIsoOrNull(t.rotatedAt),
    successor_sealed: t.successorSealed,
  };
}
