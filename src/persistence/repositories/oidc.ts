/**
 * The OIDC provider's store: authorization requests, sessions and refresh tokens. Codes and refresh tokens are
 * looked up by their SHA-256; the secrets themselves are never stored. State changes that must happen once (a code
 * redeemed, a refresh token rotated) are conditional updates whose row count tells the caller whether it won.
 */
import { sql, type Kysely } from 'kysely';
import { atomically } from '../unit-of-work.js';
import { perColumnSet, prepareQuery, preparedInsert } from '../prepared-query.js';
import type { OidcAuthRequest, OidcRefreshToken, OidcSession } from '../../domain/oidc.js';
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import type { OidcAuthRequestsTable, OidcRefreshTokensTable, OidcSessionsTable, Tables } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';

export interface OidcRepository {
  /**
   * Stores a request at its primary login (partially_authenticated or authenticated): before that it lives only in
   * its sealed id. False when a request with that key is stored already (the sealed id was logged in before).
   */
  insertAuthRequest(request: OidcAuthRequest): Promise<boolean>;
  findAuthRequest(id: string): Promise<OidcAuthRequest | undefined>;
  findAuthRequestByCodeHash(codeHash: string): Promise<OidcAuthRequest | undefined>;
  /**
   * authenticated -> code_issued (the controller's callback), in one statement that also reads the request back;
   * undefined when the request is not stored or was no longer authenticated.
   */
  issueCode(id: string, code: { codeHash: string; codeExpiresAt: Date }): Promise<OidcAuthRequest | undefined>;
  /**
   * A secondary factor answered on a partially authenticated request: records the remaining factors and the amr;
   * with none remaining, the request moves to authenticated. Compare-and-set on the outstanding factors, so two
   * answers racing cannot both count; false when the request changed first.
   */
  answerFactor(id: string, expected: OutstandingFactor[], change: { amr: string[]; outstanding: OutstandingFactor[] }): Promise<boolean>;
  /**
   * Counts a token request made with the code whose hash is `codeHash`, before it is checked, and reads its request
   * in the same statement; undefined (nothing counted) when no request has that code or `max` requests were made
   * with it already, so concurrent guesses share one budget. `findAuthRequestByCodeHash` tells the two apart.
   */
  countCodeAttempt(codeHash: string, max: number): Promise<OidcAuthRequest | undefined>;
  /** code_issued -> tokens_issued; false when the code was already redeemed. */
  redeemCode(id: string): Promise<boolean>;
  /**
   * The code exchange's writes as one unit of work (issue 13, point 3): redeems the code, stores the session and,
   * with offline_access, its first refresh token; false, writing nothing, when the code was already redeemed.
   */
  exchangeCode(id: string, session: OidcSession, refresh?: { record: OidcRefreshToken; hash: string }): Promise<boolean>;
  /** Removes requests that expired before `before` and never led to tokens. */
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
   * active -> rotated, recording when and the sealed successor, and stores the successor, in one transaction; false
   * (nothing changed) when the token was no longer active. On PostgreSQL one statement (a round trip, not four).
   */
  rotateRefreshToken(id: string, at: Date, successor: { token: OidcRefreshToken; tokenHash: string; sealed: string }): Promise<boolean>;
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
const issueCodeOf = prepareQuery<{ id: string; codeHash: string; codeExpiresAt: string }, AuthRequestRow>((db, param) =>
  db
    .updateTable('oidc_auth_requests')
    .set({ status: 'code_issued', code_hash: param('codeHash'), code_expires_at: param('codeExpiresAt') })
    .where('id', '=', param('id'))
    .where('status', '=', 'authenticated')
    .returning(AUTH_REQUEST_COLUMNS),
);
const countCodeAttemptOf = prepareQuery<{ codeHash: string; max: number }, AuthRequestRow>((db, param) =>
  db
    .updateTable('oidc_auth_requests')
    .set((eb) => ({ code_attempts: eb('code_attempts', '+', 1) }))
    .where('code_hash', '=', param('codeHash'))
    .where('code_attempts', '<', param('max'))
    .returning(AUTH_REQUEST_COLUMNS),
);
const redeemCodeOf = prepareQuery<{ id: string }>((db, param) =>
  db.updateTable('oidc_auth_requests').set({ status: 'tokens_issued' }).where('id', '=', param('id')).where('status', '=', 'code_issued'),
);

/**
 * The code exchange on PostgreSQL as one statement: the redemption, then the session and its first refresh token
 * inserted from what it returned, so nothing is written unless the code was still unspent, and a failed insert undoes
 * the redemption (one statement is atomic). Answers whether the code was redeemed. The columns are those of the rows
 * given (sessionRow, refreshRow), one statement per set of them.
 */
const exchangeStatementOf = perColumnSet(([sessionColumns = [], refreshColumns = []]) =>
  prepareQuery<Record<string, unknown>, { redeemed: string | number }>((store, param) => {
    const columns = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)));
    const values = (prefix: string, names: readonly string[]) => sql.join(names.map((name) => sql`${param(`${prefix}${name}`)}`));
    const refreshInsert =
      refreshColumns.length > 0
        ? sql`, refresh as (insert into oidc_refresh_tokens (${columns(refreshColumns)}) select ${values('r_', refreshColumns)} from session returning id)`
        : sql``;
    const exchange = sql<{ redeemed: string | number }>`with redeemed as (
        update oidc_auth_requests set status = 'tokens_issued' where id = ${param('id')} and status = 'code_issued' returning id
      ), session as (
        insert into oidc_sessions (${columns(sessionColumns)}) select ${values('s_', sessionColumns)} from redeemed returning id
      )${refreshInsert}
      select (select count(*) from redeemed) as redeemed`;
    return { compile: () => exchange.compile(store) };
  }),
);

function exchangeInOneStatement(db: Kysely<Tables>, id: string, session: OidcSessionsTable, refresh: OidcRefreshTokensTable | undefined) {
  const statement = exchangeStatementOf(Object.keys(session), refresh ? Object.keys(refresh) : []);
  return statement(db, { id, ...prefixed('s_', session), ...(refresh ? prefixed('r_', refresh) : {}) });
}

export function createOidcRepository(database: Database): OidcRepository {
  const { db } = database;
  return {
    async exchangeCode(id, session, refresh) {
      // On PostgreSQL outside a transaction: one statement (data-modifying CTEs), a round trip instead of five.
      if (database.dialect === 'postgres' && !db.isTransaction) {
        const { rows } = await exchangeInOneStatement(db, id, sessionRow(session), refresh && refreshRow(refresh.record, refresh.hash));
        return Number(rows[0]?.redeemed ?? 0) > 0;
      }
      return atomically(db, async (trx) => {
        const store = createOidcRepository({ ...database, db: trx });
        if (!(await store.redeemCode(id))) return false;
        await store.insertSession(session);
        if (refresh) await store.insertRefreshToken(refresh.record, refresh.hash);
        return true;
      });
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
        created_at: toIso(r.createdAt),
        expires_at: toIso(r.expiresAt),
      });
      return Number(result.numAffectedRows ?? 0n) > 0;
    },
    async findAuthRequest(id) {
      const [row] = (await findAuthRequestById(db, { id })).rows;
      return row && authRequestFromRow(row);
    },
    async findAuthRequestByCodeHash(codeHash) {
      const row = await db.selectFrom('oidc_auth_requests').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && authRequestFromRow(row);
    },
    async issueCode(id, code) {
      const [row] = (await issueCodeOf(db, { id, codeHash: code.codeHash, codeExpiresAt: toIso(code.codeExpiresAt) })).rows;
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
    async countCodeAttempt(codeHash, max) {
      const [row] = (await countCodeAttemptOf(db, { codeHash, max })).rows;
      return row && authRequestFromRow(row);
    },
    async redeemCode(id) {
      const result = await redeemCodeOf(db, { id });
      return Number(result.numAffectedRows ?? 0n) > 0;
    },
    async deleteExpiredAuthRequests(before) {
      // Redeemed requests stay until their session is gone: a replayed code must still find them (RFC 6749 §4.1.2).
      await db.deleteFrom('oidc_auth_requests').where('expires_at', '<', toIso(before)).where('status', '!=', 'tokens_issued').execute();
    },

    async insertSession(s) {
      await insertSessionRow(db, sessionRow(s));
    },
    async findSession(id) {
      const row = await db.selectFrom('oidc_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && sessionFromRow(row);
    },
    async revokeSession(id, at) {
      await atomically(db, async (trx) => {
        await trx.updateTable('oidc_sessions').set({ revoked_at: toIso(at) }).where('id', '=', id).where('revoked_at', 'is', null).execute();
        await trx.updateTable('oidc_refresh_tokens').set({ status: 'revoked' }).where('session_id', '=', id).execute();
        // A revoked session is kept (its tokens must keep failing); what its client reported goes (migration 0015).
        await trx.deleteFrom('posture_responses').where('oidc_session_id', '=', id).execute();
        // Its client API sessions end with it, for every kind of revocation (migration 0016).
        await trx.deleteFrom('edge_sessions').where('oidc_session_id', '=', id).execute();
        // Every controller drops what it keeps of the session (the authentication cache) within the feed's bound.
        await recordChange({ ...database, db: trx }, 'oidc-session', id);
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
      const row = await db
        .selectFrom('oidc_refresh_tokens as r')
        .innerJoin('oidc_sessions as s', 's.id', 'r.session_id')
        .selectAll('r')
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
          's.created_at as s_created_at',
        ])
        .where('r.token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
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
        created_at: row.s_created_at,
      };
      return { token: refreshFromRow(row), session: sessionFromRow(session) };
    },
    async rotateRefreshToken(id, at, successor) {
      if (database.dialect === 'postgres') {
        // Rotation and successor in one statement: the insert happens only when the update found the token active.
        const next = refreshRow(successor.token, successor.tokenHash);
        const { rows } = await sql<{ id: string }>`
          with rotated as (
            update oidc_refresh_tokens set status = 'rotated', rotated_at = ${toIso(at)}, successor_sealed = ${successor.sealed}
            where id = ${id} and status = 'active' returning id
          )
          insert into oidc_refresh_tokens (id, session_id, token_hash, status, created_at, expires_at, rotated_at, successor_sealed)
          select ${next.id}, ${next.session_id}, ${next.token_hash}, ${next.status}, ${next.created_at}, ${next.expires_at}, ${next.rotated_at}, ${next.successor_sealed}
          from rotated returning id`.execute(db);
        return rows.length > 0;
      }
      return atomically(db, async (trx) => {
        const result = await trx
          .updateTable('oidc_refresh_tokens')
          .set({ status: 'rotated', rotated_at: toIso(at), successor_sealed: successor.sealed })
          .where('id', '=', id)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await trx.insertInto('oidc_refresh_tokens').values(refreshRow(successor.token, successor.tokenHash)).execute();
        return true;
      });
    },
  };
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
    created_at: toIso(s.createdAt),
  };
}

/** `row`'s values under `prefix` + column: the values of one table in a statement that writes several. */
function prefixed(prefix: string, row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [`${prefix}${column}`, value]));
}

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
