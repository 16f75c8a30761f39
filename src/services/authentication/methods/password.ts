/**
 * Login method `password` (updb): a username and password checked against the password authenticator, counted
 * against the auth policy's lockout (decision 0015).
 */
import { ApiError } from '../../../errors/api-error.js';
import { hashPassword, verifyPassword } from '../../../crypto/passwords.js';
import type { PrimaryMethod, PrimaryMethodDeps } from './primary-method.js';
import { refuse } from './refusal.js';

/** Builds the `password` method. @example const method = createPasswordMethod(deps); await method.authenticate(request); */
export function createPasswordMethod({ credentials, passwords, policyOf, usableIdentity }: PrimaryMethodDeps): PrimaryMethod {
  // Verifying against a real hash when the username is unknown keeps the response time the same either way.
  const decoyHash = hashPassword('decoy-password-for-unknown-users');
  return {
    name: 'password',
    async authenticate({ username, password: secret, ipAddress }) {
      if (username === undefined || secret === undefined) {
        throw new ApiError('COULD_NOT_VALIDATE', {
          message: 'method password needs both username and password in the body',
          cause: { field: username === undefined ? 'username' : 'password', reason: 'is required for method password' },
        });
      }
      const credential = await credentials.findPassword(username);
      const identity = credential ? await usableIdentity(credential.identityId) : 'no password authenticator has this username';
      const policy = typeof identity === 'string' ? undefined : await policyOf(identity);
      if (typeof identity === 'string' || !credential || !policy?.primary.updb.allowed) {
        // A refusal before the password is looked at still verifies a hash, so it takes as long as a wrong password.
        await verifyPassword(await decoyHash, secret);
        throw typeof identity === 'string' ? refuse(identity) : refuse('the auth policy does not allow password logins', identity.id);
      }
      const verdict = await passwords.check({
        identity,
        authenticatorId: credential.authenticatorId,
        passwordHash: credential.passwordHash,
        secret,
        rules: policy.primary.updb,
        clientAddress: ipAddress,
      });
      if (!verdict.ok) throw refuse(verdict.lockedUntil ? `password logins are locked out until ${verdict.lockedUntil.toISOString()}` : 'wrong password', identity.id);
      return { identity, authenticatorId: credential.authenticatorId };
    },
  };
}
