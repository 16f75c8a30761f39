/**
 * Login method `ext-jwt` (issue 6): a bearer JWT from an enabled external signer names the identity; the auth
 * policy must allow the method and the signer. Only offered when the controller has external JWT support.
 */
import type { PrimaryMethod, PrimaryMethodDeps } from './primary-method.js';

/** Builds the `ext-jwt` method, or undefined without external JWT support (the method is then not enabled). */
export function createExtJwtMethod({ extJwt, policyOf }: PrimaryMethodDeps): PrimaryMethod | undefined {
  if (!extJwt) return undefined;
  return {
    name: 'ext-jwt',
    async authenticate({ bearerTokens }) {
      const { identity, signer } = await extJwt.primary(bearerTokens ?? []);
      const { allowed, allowedSigners } = (await policyOf(identity)).primary.extJwt;
      // Spec: the policy must allow ext-jwt and, when it lists signers, this one. An administrator needs the signer
      // listed by name: "any signer" (an empty list, as in the default policy) would let whoever controls any
      // enabled signer mint an admin login from the admin's id (decision 0015). Same realm as a refused token.
      const listed = allowedSigners.includes(signer.id);
      if (!allowed || (allowedSigners.length > 0 && !listed) || (identity.isAdmin && !listed)) {
        // One wording for both cases, so the answer does not tell a token holder that the identity is an admin.
        throw extJwt.refused('svc-primary-ext-jwt', [signer], `the auth policy of the identity does not allow logins with signer ${signer.id}`);
      }
      // No stored authenticator stands for an external JWT; the reference names the signer this way instead.
      return { identity, authenticatorId: `extJwtId:${signer.id}` };
    },
  };
}
