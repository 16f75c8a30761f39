/**
 * The authenticators of the session's own identity (client API, spec: Current API Session authenticator
 * operations): list and read them, and change a username/password after proving the current password.
 * Another identity's authenticator is reported as not found, never as forbidden, so ids cannot be probed. The current
 * password is checked through the password guard: it counts toward the policy's lockout like a login. The new
 * credential and the lockouts it clears commit together (decision 0020); hashing happens before.
 */
import type { Authenticator } from '../../domain/authenticator.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import { hashPassword } from '../../crypto/passwords.js';
import { usernameProblem } from '../../policy/names.js';
import { passwordProblems } from '../../policy/password-rules.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import { AUTHENTICATOR_FIELDS, type AuthenticatorRepository } from '../../persistence/repositories/authenticators.js';
import type { CredentialRepository } from '../../persistence/repositories/credentials.js';
import type { Clock } from '../../shared/clock.js';
import type { ListPage } from '../list-page.js';
import type { PasswordGuard } from '../authentication/password-guard.js';
import type { UnitOfWork } from '../../persistence/unit-of-work.js';

export interface PasswordChange {
  username?: string | null;
  password?: string | null;
  currentPassword: string;
}

/** What a changed password writes, bound to one transaction: the credential (with its username claim), the lockouts cleared. */
export interface OwnAuthenticatorChangeScope {
  credentials: Pick<CredentialRepository, 'updatePassword'>;
  passwords: Pick<PasswordGuard, 'clear'>;
}

export interface OwnAuthenticatorService {
  list(identity: Identity, params: RawListParams): Promise<ListPage<Authenticator>>;
  get(identity: Identity, id: string): Promise<Authenticator>;
  /** Changes username and/or password; fields left out (or null) keep their value. `clientAddress`: the caller's. */
  update(identity: Identity, id: string, change: PasswordChange, clientAddress: string | null): Promise<void>;
}

export function createOwnAuthenticatorService(deps: {
  authenticators: AuthenticatorRepository;
  credentials: CredentialRepository;
  authPolicies: AuthPolicyRepository;
  passwords: PasswordGuard;
  /** Runs a change of a credential with the lockouts it clears, in one transaction. */
  changes: UnitOfWork<OwnAuthenticatorChangeScope>;
  clock: Clock;
}): OwnAuthenticatorService {
  const { authenticators, credentials, authPolicies, clock } = deps;

  async function own(identity: Identity, id: string): Promise<Authenticator> {
    const found = await authenticators.findById(id);
    if (!found || found.identityId !== identity.id) throw new ApiError('NOT_FOUND', { message: `No authenticator with id '${id}' belongs to this identity` });
    return found;
  }

  return {
    async list(identity, params) {
      const query = parseListParams(params, AUTHENTICATOR_FIELDS);
      const { items, totalCount } = await authenticators.list(query, identity.id);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(AUTHENTICATOR_FIELDS) };
    },
    get: own,
    async update(identity, id, change, clientAddress) {
      const authenticator = await own(identity, id);
      const credential = authenticator.method === 'updb' ? await credentials.findPasswordById(id) : undefined;
      if (!credential) {
        throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', { message: `Authenticator '${id}' is a ${authenticator.method} authenticator; only username/password ones can be changed here` });
      }
      const policy = await authPolicies.findById(identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID);
      const verdict = await deps.passwords.check({
        identity,
        authenticatorId: id,
        passwordHash: credential.passwordHash,
        secret: change.currentPassword,
        rules: policy?.primary.updb ?? { maxAttempts: 0, lockoutDurationMinutes: 0 },
        clientAddress,
      });
      if (!verdict.ok && verdict.lockedUntil) {
        const seconds = Math.max(1, Math.ceil((verdict.lockedUntil.getTime() - clock.now().getTime()) / 1000));
        throw new ApiError('PASSWORD_LOCKED', {
          message: `Too many wrong passwords: password checks of this authenticator are locked until ${verdict.lockedUntil.toISOString()}`,
          cause: { field: 'currentPassword', reason: 'password checks are locked out' },
          retryAfterSeconds: seconds,
        });
      }
      if (!verdict.ok) {
        throw new ApiError('UNAUTHORIZED', { message: 'The current password is wrong', cause: { field: 'currentPassword', reason: 'does not match the current password' } });
      }
      const username = change.username ?? (authenticator.username as string);
      const usernameInUse = () =>
        new ApiError('COULD_NOT_VALIDATE', { message: `username '${username}' is already in use`, cause: { field: 'username', reason: 'is already in use', value: username } });
      if (username !== authenticator.username) {
        // A username stored before the rules existed may stay; a new one follows them (policy/names.ts).
        const problem = usernameProblem(username);
        if (problem) throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: username ${problem}`, cause: { field: 'username', reason: problem, value: username } });
        // Compared by key, so `Alice` is taken when `alice` is; the unique index below settles a race.
        if (await credentials.usernameTaken(username, id)) throw usernameInUse();
      }
      let passwordHash = credential.passwordHash;
      if (change.password !== undefined && change.password !== null) {
        const problems = policy ? passwordProblems(policy.primary.updb, change.password) : [];
        if (problems.length > 0) {
          throw new ApiError('INVALID_PASSWORD', { message: `The new password ${problems.join(', ')}`, cause: { field: 'password', reason: problems.join('; ') } });
        }
        passwordHash = await hashPassword(change.password);
      }
      await deps.changes(async (scope) => {
        if (!(await scope.credentials.updatePassword(id, { username, passwordHash, at: clock.now() }))) throw usernameInUse();
        // A new password starts with a clean count (the old one's guesses say nothing about it).
        if (passwordHash !== credential.passwordHash) await scope.passwords.clear(identity.id);
      });
    },
  };
}
