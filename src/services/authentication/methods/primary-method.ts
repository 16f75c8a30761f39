/**
 * The one interface every primary login method implements (password, cert, ext-jwt, …), and what the
 * authentication service lends them. A method only proves who the credential belongs to; the flow around it
 * (method lookup, refusal reporting, client info, sessions) stays in ../authentication.ts, so every method gets it
 * the same way.
 */
import type { AuthPolicy } from '../../../domain/auth-policy.js';
import type { Identity } from '../../../domain/identity.js';
import type { CredentialRepository } from '../../../persistence/repositories/credentials.js';
import type { ExtJwtAuthenticator } from '../../external-jwt/ext-jwt-auth.js';
import type { AuthenticationRequest } from '../authentication.js';
import type { PasswordGuard } from '../password-guard.js';

/** Who a credential proved, and with which authenticator (the session's `authenticatorId`). */
export interface PrimaryOutcome {
  identity: Identity;
  authenticatorId: string;
  /** The third-party CA a certificate login's chain reached (decision 0057); absent otherwise. */
  caId?: string;
}

/** A primary login method: the `method` name a client asks for, and the check of the credential it presented. */
export interface PrimaryMethod {
  readonly name: string;
  /** The identity the credential proves; throws `refuse(…)` (401 INVALID_AUTH) or another ApiError otherwise. */
  authenticate(request: AuthenticationRequest): Promise<PrimaryOutcome>;
}

/** What methods may use: stores and checks, and the two identity rules every method applies alike. */
export interface PrimaryMethodDeps {
  credentials: CredentialRepository;
  /** Counts password attempts against the policy's lockout. */
  passwords: PasswordGuard;
  /** Primary external JWT checks; absent when no signer support is configured. */
  extJwt?: ExtJwtAuthenticator;
  /** The auth policy an identity is governed by (its own, else the system `default`). */
  policyOf(identity: Identity): Promise<AuthPolicy>;
  /** The identity behind a credential, if it exists and may log in now; the reason in words when it may not. */
  usableIdentity(identityId: string): Promise<Identity | string>;
  /**
   * Whether a presented chain (leaf first) leads to a CA trusted now: the controller's own, or a verified third-party
   * CA that allows logins (decision 0037). Absent, the TLS layer's verdict against the controller's own CAs counts.
   */
  clientCaTrust?: { loginVerdict(chain: readonly Buffer[]): Promise<ClientChainVerdict> };
}

/**
 * A presented chain judged now; `claimed` when it reached a third-party CA with an `externalIdClaim`: what the claim
 * read from the leaf (undefined when nothing), which names the identity of a leaf no authenticator holds.
 */
export type ClientChainVerdict = ({ ok: true } | { ok: false; code: string; reason: string }) & {
  /** The verified third-party CA the chain reached; absent for the controller's own CAs. */
  caId?: string;
  claimed?: { caId: string; caName: string; externalId: string | undefined };
};

/** Builds a method from the shared deps, or returns undefined when what it needs is not configured. */
export type PrimaryMethodFactory = (deps: PrimaryMethodDeps) => PrimaryMethod | undefined;
