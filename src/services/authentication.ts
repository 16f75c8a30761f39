/**
 * Primary authentication of the legacy flow (spec: Legacy flow): verifies the presented credential with the
 * chosen method and opens an API session. Methods are strategies keyed by name; `password` is the first,
 * `cert` and `ext-jwt` join it with the identity and external-signer work (roadmap steps 2 and 4).
 */
import { ApiError } from '../errors/api-error.js';
import { hashPassword, verifyPassword } from '../crypto/passwords.js';
import type { ApiSession, Identity } from '../domain/identity.js';
import type { IdentityRepository } from '../persistence/repositories/identities.js';
import type { ApiSessionService } from './api-sessions.js';

export interface AuthenticationRequest {
  method: string;
  username?: string;
  password?: string;
  ipAddress: string | null;
}

export interface AuthenticationResult {
  session: ApiSession;
  token: string;
  identity: Identity;
  expiresAt: Date;
}

export interface AuthenticationService {
  authenticate(request: AuthenticationRequest): Promise<AuthenticationResult>;
}

type PrimaryMethod = (request: AuthenticationRequest) => Promise<Identity>;

const invalidAuth = () => new ApiError('INVALID_AUTH', { message: 'The authentication request failed: unknown username or wrong password' });

export function createAuthenticationService(deps: {
  identities: IdentityRepository;
  apiSessions: ApiSessionService;
  sessionTimeoutMs: number;
}): AuthenticationService {
  // Verifying against a real hash when the username is unknown keeps the response time the same either way,
  // so timing does not tell which usernames exist.
  const decoyHash = hashPassword('decoy-password-for-unknown-users');

  const password: PrimaryMethod = async ({ username, password: secret }) => {
    if (username === undefined || secret === undefined) {
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: 'method password needs both username and password in the body',
        cause: { field: username === undefined ? 'username' : 'password', reason: 'is required for method password' },
      });
    }
    const credential = await deps.identities.findPasswordCredential(username);
    const matches = await verifyPassword(credential?.passwordHash ?? (await decoyHash), secret);
    if (!credential || !matches) throw invalidAuth();
    const identity = await deps.identities.findById(credential.identityId);
    if (!identity || identity.disabled) throw invalidAuth();
    return identity;
  };

  const methods: Record<string, PrimaryMethod> = { password };

  return {
    async authenticate(request) {
      const method = methods[request.method];
      if (!method) {
        throw new ApiError('INVALID_AUTH_METHOD', {
          message: `authentication method '${request.method}' is not enabled on this controller (enabled: ${Object.keys(methods).join(', ')})`,
          cause: { field: 'method', reason: 'is not an enabled authentication method', value: request.method },
        });
      }
      const identity = await method(request);
      const { session, token } = await deps.apiSessions.start(identity.id, request.method, request.ipAddress);
      return { session, token, identity, expiresAt: new Date(session.lastActivityAt.getTime() + deps.sessionTimeoutMs) };
    },
  };
}
