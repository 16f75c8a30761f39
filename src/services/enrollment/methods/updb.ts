/**
 * Enrollment method `updb` (reference facts §9): a one-time token and a password that satisfies the auth policy
 * set the password of the username the administrator chose, as a password authenticator.
 */
import { hashPassword } from '../../../crypto/passwords.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../../domain/auth-policy.js';
import { ApiError } from '../../../errors/api-error.js';
import type { NewAuthenticator } from '../../../persistence/repositories/enrollments.js';
import { usernameKey } from '../../../policy/names.js';
import { passwordProblems } from '../../../policy/password-rules.js';
import { newEntityId } from '../../../shared/random.js';
import type { EnrollMethod } from './enroll-method.js';

/** `username`, when given, must be the enrollment's. */
export interface UpdbInput {
  username?: string;
  password: string;
}

export interface UpdbResult {
  identityId: string;
  username: string;
}

export const updbEnrollment: EnrollMethod<UpdbInput, UpdbResult> = {
  name: 'updb',
  authenticator: { method: 'updb', kind: 'password' },
  conflict: { field: 'username', what: 'username' },
  takesUsername: true,
  async enroll(context, token, { username, password }) {
    const pending = await context.pending(token);
    const { enrollment, identity } = pending;
    const enrolledName = enrollment.username ?? '';
    // Compared as logins compare it: `Alice` names the enrollment made for `alice`, which keeps its spelling.
    if (username !== undefined && usernameKey(username) !== usernameKey(enrolledName)) {
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: 'The request is invalid: username must be the one the enrollment was made for, or absent',
        cause: { field: 'username', reason: 'does not match the enrollment', value: username },
      });
    }
    const { authPolicies } = context;
    const policy = (await authPolicies.findById(identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID)) ?? (await authPolicies.findById(DEFAULT_AUTH_POLICY_ID));
    if (!policy) throw new Error(`auth policy ${identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID} not found, nor the default policy`);
    const problems = passwordProblems(policy.primary.updb, password);
    if (problems.length > 0) {
      throw new ApiError('INVALID_PASSWORD', {
        message: `The password does not satisfy the auth policy ${policy.name}: it ${problems.join('; it ')}`,
        cause: { field: 'password', reason: problems.join('; ') },
      });
    }
    const authenticator: NewAuthenticator = {
      id: newEntityId(),
      identityId: identity.id,
      method: 'updb',
      username: enrolledName,
      passwordHash: await hashPassword(password),
      createdAt: context.clock.now(),
    };
    await context.consume(pending, authenticator, { username: enrolledName });
    return { identityId: identity.id, username: enrolledName };
  },
};
