/**
 * The default administrator: the first identity, created once per store with a username/password
 * authenticator so an operator can log in and set the rest up.
 */
import { hashPassword } from '../../crypto/passwords.js';
import { newIdentity, type Identity } from '../../domain/identity.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { usernameProblem } from '../../policy/names.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';

/**
 * The username rules every username follows (policy/names.ts: 4 to 100 characters, no white space at either end, no
 * control, bidirectional or invisible characters; the username is also the admin identity's name) and the spec's
 * password length, 5 to 100. Returns the problem, or undefined.
 */
export function adminCredentialsProblem(credentials: { username: string; password: string }): string | undefined {
  const { username, password } = credentials;
  const problem = usernameProblem(username);
  if (problem) return `admin username ${problem}`;
  if (password.length < 5 || password.length > 100) return `admin password must be 5 to 100 characters (got ${password.length})`;
  return undefined;
}

/** Creates the default admin unless one exists; says which happened. */
export async function ensureDefaultAdmin(
  deps: { identities: IdentityRepository; clock: Clock },
  credentials: { username: string; password: string },
): Promise<{ created: boolean; identity: Identity }> {
  const problem = adminCredentialsProblem(credentials);
  if (problem) throw new Error(problem);
  const existing = await deps.identities.findDefaultAdmin();
  if (existing) return { created: false, identity: existing };
  const fields = { id: newEntityId(), name: credentials.username, typeId: 'Default' as const, isAdmin: true, authPolicyId: null, externalId: null, roleAttributes: [], tags: {} };
  const identity = newIdentity(fields, deps.clock.now(), { isDefaultAdmin: true });
  await deps.identities.insertWithPassword(identity, {
    id: newEntityId(),
    username: credentials.username,
    passwordHash: await hashPassword(credentials.password),
  });
  return { created: true, identity };
}
