/**
 * What an identity still has to present after its primary credential was accepted (spec: Authentication Policy
 * settings that the authentication flows read; OIDC authorization request states). Pure: the caller gathers the
 * facts (the identity's auth policy, and later its MFA enrollment) and stores what is outstanding.
 */
import type { AuthPolicyBody, OutstandingFactor } from '../domain/auth-policy.js';
import type { Identity } from '../domain/identity.js';

export type { OutstandingFactor };

/**
 * The identity facts the decision reads. The MFA issue adds `hasVerifiedTotp` (an identity that enrolled TOTP must
 * answer it even when its policy does not require it, as the reference controller does).
 */
export type FactorSubject = Pick<Identity, 'id'> & { readonly hasVerifiedTotp?: boolean };

/**
 * The secondary factors outstanding for `identity` under `policy`, TOTP first. Empty means fully authenticated.
 *
 * @example
 * outstandingFactors(identity, { secondary: { requireTotp: true, requireExtJwt: null } }); // [{ kind: 'totp' }]
 */
export function outstandingFactors(identity: FactorSubject, policy: Pick<AuthPolicyBody, 'secondary'>): OutstandingFactor[] {
  const factors: OutstandingFactor[] = [];
  if (policy.secondary.requireTotp || identity.hasVerifiedTotp === true) factors.push({ kind: 'totp' });
  // Listed now, satisfiable once external JWT signers exist (issue 6): until then such a login stays partial.
  if (policy.secondary.requireExtJwt) factors.push({ kind: 'ext-jwt', signerId: policy.secondary.requireExtJwt });
  return factors;
}
