/**
 * External JWT signers: identity providers whose JWTs the controller accepts as a primary credential or as a
 * per-request secondary factor (spec: External JWT Signer; reference facts §7). A signer names the issuer and
 * audience its tokens must carry, where its public keys come from (one certificate, or a JWKS endpoint), and which
 * claim names the identity (`claimsProperty`, matched to the identity's id or, with `useExternalId`, its externalId).
 */

/** Which token of the provider's login a client should send (the reference's `targetToken`). */
export type TargetToken = 'ACCESS' | 'ID';

export const TARGET_TOKENS: readonly TargetToken[] = ['ACCESS', 'ID'];

/** The claim that names the identity when a signer is created without one. */
export const DEFAULT_CLAIMS_PROPERTY = 'sub';

export interface ExternalJwtSigner {
  id: string;
  /** Unique. */
  name: string;
  /** Must equal the token's `iss`. */
  issuer: string;
  /** Must be one of the token's `aud` values. */
  audience: string;
  enabled: boolean;
  /** Exactly one of `certPem` and `jwksEndpoint` is set. */
  certPem: string | null;
  jwksEndpoint: string | null;
  /** For a `certPem` signer: the `kid` its tokens carry, if they carry one. */
  kid: string | null;
  /** A claim name (`sub`) or a JSON pointer into the claims (`/user/id`). */
  claimsProperty: string;
  useExternalId: boolean;
  /** Where clients log in to the provider; public (client API). */
  externalAuthUrl: string | null;
  clientId: string | null;
  scopes: string[];
  targetToken: TargetToken;
  tags: Record<string, string | boolean | null>;
  createdAt: Date;
  updatedAt: Date;
}
