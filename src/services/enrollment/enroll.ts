/**
 * Enrolling: an anonymous client presents a one-time token and gets a credential (reference facts §9).
 * `ott` exchanges a CSR for a client certificate signed by the enrollment signing CA; `updb` sets the password of
 * the username the administrator chose. Either way the enrollment is consumed and the authenticator created in one
 * transaction, so one token enrolls exactly once however many requests race with it.
 *
 * Token outcomes: unknown -> 400 INVALID_ENROLLMENT_TOKEN; another method's token -> 400 INVALID_ENROLL_METHOD;
 * expired -> 400 ENROLLMENT_EXPIRED (the enrollment stays for an administrator to refresh); used -> 400
 * INVALID_ENROLLMENT_TOKEN, as for unknown (a consumed enrollment leaves no row behind), except for the loser of a
 * race on one token, which is told 410 INVALID_ENROLLMENT_ALREADY_ENROLLED.
 */
import { hashPassword } from '../../crypto/passwords.js';
import type { Enrollment, EnrollmentMethod } from '../../domain/enrollment.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { ConsumeOutcome, EnrollmentRepository, NewAuthenticator } from '../../persistence/repositories/enrollments.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { certificateFingerprint, issueCertificate, type LoadedCertificateAuthority } from '../../pki/index.js';
import { usernameKey } from '../../policy/names.js';
import { passwordProblems } from '../../policy/password-rules.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { AuditService } from '../audit/audit.js';
import { parseCsr } from './csr.js';
import type { EnrollmentJwtSigner, Jwks } from './enrollment-jwt.js';

/** The methods `POST /enroll?method=` accepts. */
export const ENROLL_METHODS: readonly EnrollmentMethod[] = ['ott', 'updb'];

/** Lifetime of an enrolled identity's client certificate (the reference issues one year). */
export const CLIENT_CERT_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;

export interface EnrollService {
  /** The key set (RFC 7517) that verifies enrollment JWTs. */
  jwks(): Jwks;
  /** Consumes an `ott` token: a client certificate for the CSR's key. `certChainPem` is the leaf then the CA chain. */
  enrollOtt(input: { token: string; csrPem: string | undefined }): Promise<{ identityId: string; certChainPem: string }>;
  /** Consumes a `updb` token: sets the password. `username`, when given, must be the enrollment's. */
  enrollUpdb(input: { token: string; username?: string; password: string }): Promise<{ identityId: string; username: string }>;
}

export interface EnrollServiceDeps {
  enrollments: EnrollmentRepository;
  identities: IdentityRepository;
  authPolicies: AuthPolicyRepository;
  audit: AuditService;
  clock: Clock;
  /** Both undefined when the controller has no `edge` section. */
  jwt: EnrollmentJwtSigner | undefined;
  signingCa: LoadedCertificateAuthority | undefined;
}

function unavailable(): ApiError {
  return new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
}

/** Builds the enroll service. @example const { certChainPem } = await enroll.enrollOtt({ token, csrPem }); */
export function createEnrollService(deps: EnrollServiceDeps): EnrollService {
  const { enrollments, identities, audit, clock } = deps;

  /** The pending enrollment of `token`, checked for method and expiry, with its identity. */
  async function pending(token: string, method: EnrollmentMethod): Promise<{ enrollment: Enrollment; identity: Identity }> {
    const enrollment = await enrollments.findByToken(token);
    const identity = enrollment && (await identities.findById(enrollment.identityId));
    if (!enrollment || !identity) {
      throw new ApiError('INVALID_ENROLLMENT_TOKEN', { cause: { field: 'token', reason: 'no pending enrollment has this token; it is unknown or already used' } });
    }
    if (enrollment.method !== method) {
      throw new ApiError('INVALID_ENROLL_METHOD', {
        message: `This token is for enrollment method ${enrollment.method}, not ${method}`,
        cause: { field: 'method', value: method },
      });
    }
    if (enrollment.expiresAt.getTime() <= clock.now().getTime()) {
      throw new ApiError('ENROLLMENT_EXPIRED', {
        message: `The enrollment expired at ${enrollment.expiresAt.toISOString()}; an administrator can refresh it`,
        cause: { field: 'token', reason: 'expired' },
      });
    }
    return { enrollment, identity };
  }

  /** Completes the enrollment or says why not; records who enrolled. */
  async function consume(enrollment: Enrollment, identity: Identity, authenticator: NewAuthenticator, details: Record<string, unknown>) {
    const outcome: ConsumeOutcome = await enrollments.consume(enrollment, authenticator);
    if (outcome === 'gone') {
      throw new ApiError('INVALID_ENROLLMENT_ALREADY_ENROLLED', { message: 'The token was used (or withdrawn) by another request at the same time' });
    }
    if (outcome === 'conflict') {
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: `The ${authenticator.method === 'updb' ? 'username' : 'certificate'} is already used by another authenticator`,
        cause: { field: authenticator.method === 'updb' ? 'username' : 'csr', reason: 'is already used by another authenticator' },
      });
    }
    const actor = { id: identity.id, name: identity.name };
    await audit.record(actor, 'enroll', 'enrollment', enrollment.id, { identityId: identity.id, method: enrollment.method, authenticatorId: authenticator.id, ...details });
  }

  return {
    jwks() {
      if (!deps.jwt) throw unavailable();
      return deps.jwt.jwks();
    },

    async enrollOtt({ token, csrPem }) {
      const { signingCa } = deps;
      if (!signingCa) throw unavailable();
      const { enrollment, identity } = await pending(token, 'ott');
      const csr = await parseCsr(csrPem);
      // Only the key is taken from the CSR: the subject and names are the controller's to decide.
      const cert = await issueCertificate({
        profile: 'client',
        publicKey: csr.publicKey,
        subject: { commonName: identity.id },
        subjectAltNames: { uri: [`spiffe://svc/identity/${identity.id}`] },
        validityMs: CLIENT_CERT_VALIDITY_MS,
        issuer: signingCa,
        clock,
      });
      const leafPem = `${cert.toString('pem').trimEnd()}\n`;
      const fingerprint = certificateFingerprint(leafPem);
      const now = clock.now();
      const authenticator: NewAuthenticator = { id: newEntityId(), identityId: identity.id, method: 'cert', certFingerprint: fingerprint, certPem: leafPem, createdAt: now };
      await consume(enrollment, identity, authenticator, { fingerprint });
      return { identityId: identity.id, certChainPem: [leafPem, ...signingCa.chainPems].join('') };
    },

    async enrollUpdb({ token, username, password }) {
      const { enrollment, identity } = await pending(token, 'updb');
      const enrolledName = enrollment.username ?? '';
      // Compared as logins compare it: `Alice` names the enrollment made for `alice`, which keeps its spelling.
      if (username !== undefined && usernameKey(username) !== usernameKey(enrolledName)) {
        throw new ApiError('COULD_NOT_VALIDATE', {
          message: 'The request is invalid: username must be the one the enrollment was made for, or absent',
          cause: { field: 'username', reason: 'does not match the enrollment', value: username },
        });
      }
      const policy = (await deps.authPolicies.findById(identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID)) ?? (await deps.authPolicies.findById(DEFAULT_AUTH_POLICY_ID));
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
        createdAt: clock.now(),
      };
      await consume(enrollment, identity, authenticator, { username: enrolledName });
      return { identityId: identity.id, username: enrolledName };
    },
  };
}
