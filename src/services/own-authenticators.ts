/**
 * The authenticators of the session's own identity (client API, spec: Current API Session authenticator
 * operations): list and read them, and change a username/password after proving the current password.
 * Another identity's authenticator is reported as not found, never as forbidden, so ids cannot be probed.
 */
import type { Authenticator } from '../domain/authenticator.js';
import { DEFAULT_AUTH_POLICY_ID } from '../domain/auth-policy.js';
import type { Identity } from '../domain/identity.js';
import { ApiError } from '../errors/api-error.js';
import { hashPassword, verifyPassword } from '../crypto/passwords.js';
import { passwordProblems } from '../policy/password-rules.js';
import { parseListParams, type RawListParams } from '../persistence/query/list-query.js';
import type { AuthPolicyRepository } from '../persistence/repositories/auth-policies.js';
import { AUTHENTICATOR_FIELDS, type AuthenticatorRepository } from '../persistence/repositories/authenticators.js';
import type { CredentialRepository } from '../persistence/repositories/credentials.js';
import type { Clock } from '../shared/clock.js';
import type { ListPage } from './list-page.js';

export interface PasswordChange {
  username?: string | null;
  password?: string | null;
  currentPassword: string;
}

export interface OwnAuthenticatorService {
  list(identity: Identity, params: RawListParams): Promise<ListPage<Authenticator>>;
  get(identity: Identity, id: string): Promise<Authenticator>;
  /** Changes username and/or password; fields left out (or null) keep their value. */
  update(identity: Identity, id: string, change: PasswordChange): Promise<void>;
}

export function createOwnAuthenticatorService(deps: {
  authenticators: AuthenticatorRepository;
  credentials: CredentialRepository;
  authPolicies: AuthPolicyRepository;
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
    async update(identity, id, change) {
      const authenticator = await own(identity, id);
      const credential = authenticator.method === 'updb' ? await credentials.findPasswordById(id) : undefined;
      if (!credential) {
        throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', { message: `Authenticator '${id}' is a ${authenticator.method} authenticator; only username/password ones can be changed here` });
      }
      if (!(await verifyPassword(credential.passwordHash, change.currentPassword))) {
        throw new ApiError('UNAUTHORIZED', { message: 'The current password is wrong', cause: { field: 'currentPassword', reason: 'does not match the current password' } });
      }
      const username = change.username ?? (authenticator.username as string);
      if (username !== authenticator.username && (await credentials.usernameTaken(username, id))) {
        throw new ApiError('COULD_NOT_VALIDATE', { message: `username '${username}' is already in use`, cause: { field: 'username', reason: 'is already in use', value: username } });
      }
      let passwordHash = credential.passwordHash;
      if (change.password !== undefined && change.password !== null) {
        const policy = await authPolicies.findById(identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID);
        const problems = policy ? passwordProblems(policy.primary.updb, change.password) : [];
        if (problems.length > 0) {
          throw new ApiError('INVALID_PASSWORD', { message: `The new password ${problems.join(', ')}`, cause: { field: 'password', reason: problems.join('; ') } });
        }
        passwordHash = await hashPassword(change.password);
      }
      await credentials.updatePassword(id, { username, passwordHash, at: clock.now() });
    },
  };
}
