/**
 * The spec's Authentication Query: what a partially authenticated login or session still has to answer, and where
 * to post the answer. Shared by the legacy session (answered at `authenticate/mfa`) and the OIDC login (answered at
 * `<issuer>/login/totp` or `/login/ext-jwt`).
 */
import type { OutstandingFactor } from './auth-policy.js';

export interface AuthQuery {
  typeId: 'MFA' | 'EXT-JWT';
  /** The external JWT signer that must sign the secondary JWT (EXT-JWT only). */
  id?: string;
  format?: 'alphaNumeric';
  httpMethod: 'POST';
  httpUrl: string;
  minLength?: number;
  maxLength?: number;
  provider: 'svc';
}

/** Where each kind of factor is answered. */
export interface AnswerUrls {
  totp: string;
  extJwt: string;
}

/** Spec: Authentication Query; a TOTP code is six characters. */
export function authQueriesOf(outstanding: readonly OutstandingFactor[], urls: AnswerUrls): AuthQuery[] {
  return outstanding.map((factor) =>
    factor.kind === 'totp'
      ? { typeId: 'MFA', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: urls.totp, minLength: 6, maxLength: 6, provider: 'svc' }
      : { typeId: 'EXT-JWT', id: factor.signerId, httpMethod: 'POST', httpUrl: urls.extJwt, provider: 'svc' },
  );
}

/** True while TOTP is outstanding: login responses then carry `totp-required: true` (spec: Headers). */
export const totpRequired = (outstanding: readonly OutstandingFactor[]) => outstanding.some((factor) => factor.kind === 'totp');
