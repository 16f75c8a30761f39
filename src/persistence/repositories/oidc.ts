/**
 * The OIDC provider's store: authorization requests, sessions and refresh tokens. Codes and refresh tokens are
 * looked up by their SHA-256; the secrets themselves are never stored. State changes that must happen once (a code
 * redeemed, a refresh token rotated) are conditional updates whose row count tells the caller whether it won.
 */
import type { OidcAuthRequest, OidcRefreshToken, OidcSession } from '../../domain/oidc.js';
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import type { OidcAuthRequestsTable, OidcRefreshTokensTable, OidcSessionsTable } from '../tables.js';
import { parseJson, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';

export interface OidcRepository {
  insertAuthRequest(request: OidcAuthRequest): Promise<void>;
  findAuthRequest(id: string): Promise<OidcAuthRequest | undefined>;
  findAuthRequestByCodeHash(codeHash: string): Promise<OidcAuthRequest | undefined>;
  /**
   * started -> partially_authenticated with the factors still outstanding; false when the request was no longer
   * `started`.
   */
  markPartiallyAuthenticated(id: string, change: { identityId: string; amr: string[]; authTime: Date; outstanding: OutstandingFactor[] }): Promise<boolean>;
  /** started -> code_issued; false when the request was no longer `started`. */
  issueCode(id: string, change: { identityId: string; amr: string[]; authTime: Date; codeHash: string; codeExpiresAt: Date }): Promise<boolean>;
  /**
   * A secondary factor answered on a partially authenticated request: records the remaining factors and the amr;
   * with `code`, none remain and the request moves to code_issued. Compare-and-set on the outstanding factors, so
   * two answers racing cannot both count; false when the request changed first.
   */
  answerFactor(
    id: string,
    expected: OutstandingFactor[],
    change: { amr: string[]; outstanding: OutstandingFactor[]; code?: { hash: string; expiresAt: Date } },
  ): Promise<boolean>;
  /** code_issued -> tokens_issued; false when the code was already redeemed. */
  redeemCode(id: string): Promise<boolean>;
  /** Removes requests that expired before `before` and never led to tokens. */
  deleteExpiredAuthRequests(before: Date): Promise<void>;

  insertSession(session: OidcSession): Promise<void>;
  findSession(id: string): Promise<OidcSession | undefined>;
  /** Marks the session revoked and revokes every refresh token of it. */
  revokeSession(id: string, at: Date): Promise<void>;

  insertRefreshToken(token: OidcRefreshToken, tokenHash: string): Promise<void>;
  findRefreshToken(tokenHash: string): Promise<OidcRefreshToken | undefined>;
  /** active -> rotated; false when it was no longer active. */
  rotateRefreshToken(id: string): Promise<boolean>;
}

function authRequestFromRow(row: OidcAuthRequestsTable): OidcAuthRequest {
  return {
    id: row.id,
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
    revokedAt: toDateOrNull(row.revoked_at),
    createdAt: toDate(row.created_at),
  };
}

function refreshFromRow(row: OidcRefreshTokensTable): OidcRefreshToken {
  return { id: row.id, sessionId: row.session_id, status: row.status, createdAt: toDate(row.created_at), expiresAt: toDate(row.expires_at) };
}

export function createOidcRepository({ db }: Database): OidcRepository {
  return {
    async insertAuthRequest(r) {
      await db
        .insertInto('oidc_auth_requests')
        .values({
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
          code_expires_at: toIsoOrNull(r.codeExpiresAt),
          api_session_id: r.apiSessionId,
          auth_time: toIsoOrNull(r.authTime),
          created_at: toIso(r.createdAt),
          expires_at: toIso(r.expiresAt),
        })
        .execute();
    },
    async findAuthRequest(id) {
      const row = await db.selectFrom('oidc_auth_requests').selectAll().where('id', '=', id).executeTakeFirst();
      return row && authRequestFromRow(row);
    },
    async findAuthRequestByCodeHash(codeHash) {
      const row = await db.selectFrom('oidc_auth_requests').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && authRequestFromRow(row);
    },
    async markPartiallyAuthenticated(id, change) {
      const result = await db
        .updateTable('oidc_auth_requests')
        .set({
          status: 'partially_authenticated',
          identity_id: change.identityId,
          amr: JSON.stringify(change.amr),
          auth_time: toIso(change.authTime),
          outstanding_factors: JSON.stringify(change.outstanding),
        })
        .where('id', '=', id)
        .where('status', '=', 'started')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async issueCode(id, change) {
      const result = await db
        .updateTable('oidc_auth_requests')
        .set({
          status: 'code_issued',
          identity_id: change.identityId,
          amr: JSON.stringify(change.amr),
          auth_time: toIso(change.authTime),
          code_hash: change.codeHash,
          code_expires_at: toIso(change.codeExpiresAt),
        })
        .where('id', '=', id)
        .where('status', '=', 'started')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async answerFactor(id, expected, change) {
      const result = await db
        .updateTable('oidc_auth_requests')
        .set({
          amr: JSON.stringify(change.amr),
          outstanding_factors: JSON.stringify(change.outstanding),
          ...(change.code ? { status: 'code_issued', code_hash: change.code.hash, code_expires_at: toIso(change.code.expiresAt) } : {}),
        })
        .where('id', '=', id)
        .where('status', '=', 'partially_authenticated')
        .where('outstanding_factors', '=', JSON.stringify(expected))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async redeemCode(id) {
      const result = await db
        .updateTable('oidc_auth_requests')
        .set({ status: 'tokens_issued' })
        .where('id', '=', id)
        .where('status', '=', 'code_issued')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async deleteExpiredAuthRequests(before) {
      // Redeemed requests stay until their session is gone: a replayed code must still find them (RFC 6749 §4.1.2).
      await db.deleteFrom('oidc_auth_requests').where('expires_at', '<', toIso(before)).where('status', '!=', 'tokens_issued').execute();
    },

    async insertSession(s) {
      await db
        .insertInto('oidc_sessions')
        .values({
          id: s.id,
          identity_id: s.identityId,
          client_id: s.clientId,
          issuer: s.issuer,
          scope: s.scope,
          amr: JSON.stringify(s.amr),
          auth_time: toIso(s.authTime),
          revoked_at: toIsoOrNull(s.revokedAt),
          created_at: toIso(s.createdAt),
        })
        .execute();
    },
    async findSession(id) {
      const row = await db.selectFrom('oidc_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && sessionFromRow(row);
    },
    async revokeSession(id, at) {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('oidc_sessions').set({ revoked_at: toIso(at) }).where('id', '=', id).where('revoked_at', 'is', null).execute();
        await trx.updateTable('oidc_refresh_tokens').set({ status: 'revoked' }).where('session_id', '=', id).execute();
      });
    },

    async insertRefreshToken(t, tokenHash) {
      await db
        .insertInto('oidc_refresh_tokens')
        .values({ id: t.id, session_id: t.sessionId, token_hash: tokenHash, status: t.status, created_at: toIso(t.createdAt), expires_at: toIso(t.expiresAt) })
        .execute();
    },
    async findRefreshToken(tokenHash) {
      const row = await db.selectFrom('oidc_refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && refreshFromRow(row);
    },
    async rotateRefreshToken(id) {
      const result = await db.updateTable('oidc_refresh_tokens').set({ status: 'rotated' }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
