/**
 * Enrolling: an anonymous client presents a one-time token and gets a credential (reference facts §9).
 * `ott` exchanges a CSR for a client certificate signed by the enrollment signing CA; `updb` sets the password of
 * the username the administrator chose. Either way the enrollment is consumed, the authenticator created and the
 * enrollment's audit entry written in one transaction (decision 0020), so one token enrolls exactly once however many
 * requests race with it, and never without its entry. Each method is a module in
 * methods/, found by name in the registry methods/index.ts (decision 0018); this file keeps what all share.
 *
 * Token outcomes: unknown -> 400 INVALID_ENROLLMENT_TOKEN; another method's token -> 400 INVALID_ENROLL_METHOD;
 * expired -> 400 ENROLLMENT_EXPIRED (the enrollment stays for an administrator to refresh); used -> 410
 * INVALID_ENROLLMENT_ALREADY_ENROLLED "already used, at …" (the consumed enrollment's token hash is kept for that:
 * migration 0032), as is the loser of a race on one token.
 */
import type { EnrollmentMethod } from '../../domain/enrollment.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { ConsumeOutcome, EnrollmentRepository } from '../../persistence/repositories/enrollments.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { LoadedCertificateAuthority } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { EnrollmentJwtSigner, Jwks } from './enrollment-jwt.js';
import { enrollMethod, type EnrollCas, type EnrollContext, type EnrollInput, type EnrollResult, type PendingEnrollment } from './methods/index.js';

export { ENROLL_METHODS, isEnrollMethod, type EnrollInput, type EnrollResult } from './methods/index.js';
export { CLIENT_CERT_VALIDITY_MS } from './identity-certificate.js';

export interface EnrollService {
  /** The key set (RFC 7517) that verifies enrollment JWTs. */
  jwks(): Jwks;
  /**
   * Consumes a token of `method` with that method's input: `ott` a CSR for a client certificate chain (the leaf then
   * the CA chain), `updb` a password (and optionally the enrollment's username) for a password authenticator.
   */
  enroll<M extends EnrollmentMethod>(method: M, token: string, input: EnrollInput<M>): Promise<EnrollResult<M>>;
}

export interface EnrollServiceDeps {
  enrollments: EnrollmentRepository;
  identities: IdentityRepository;
  authPolicies: AuthPolicyRepository;
  /** Consuming an enrollment (the pending row out, the authenticator in) and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<EnrollmentRepository, 'consume'>>;
  clock: Clock;
  /** Both undefined when the controller has no `edge` section. */
  jwt: EnrollmentJwtSigner | undefined;
  signingCa: LoadedCertificateAuthority | undefined;
  /** Third-party CAs (ottca, ca); undefined where the controller was built without them. */
  cas?: EnrollCas | undefined;
}

/** A token that already enrolled something: said so, with when, rather than "unknown" (migration 0032). */
export function alreadyUsed(at: Date): ApiError {
  return new ApiError('INVALID_ENROLLMENT_ALREADY_ENROLLED', {
    message: `This enrollment token was already used, at ${at.toISOString()}; an administrator can issue a new enrollment`,
    cause: { field: 'token', reason: 'already used' },
  });
}

function unavailable(): ApiError {
  return new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
}

/** Builds the enroll service. @example const { certChainPem } = await enroll.enroll('ott', token, { csrPem }); */
export function createEnrollService(deps: EnrollServiceDeps): EnrollService {
  const { enrollments, identities, clock } = deps;

  /** The pending enrollment of `token`, checked for method and expiry, with its identity. */
  async function pending(token: string, method: EnrollmentMethod): Promise<PendingEnrollment> {
    const enrollment = await enrollments.findByToken(token);
    const identity = enrollment && (await identities.findById(enrollment.identityId));
    if (!enrollment || !identity) {
      const usedAt = enrollment ? undefined : await enrollments.tokenUsedAt(token);
      if (usedAt) throw alreadyUsed(usedAt);
      throw new ApiError('INVALID_ENROLLMENT_TOKEN', { cause: { field: 'token', reason: 'no pending enrollment has this token; it is unknown or was withdrawn' } });
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

  /** The shared steps, bound to one method. */
  function contextOf(method: EnrollmentMethod): EnrollContext {
    const { conflict } = enrollMethod(method);
    return {
      clock,
      authPolicies: deps.authPolicies,
      signingCa: deps.signingCa,
      cas: deps.cas,
      unavailable,
      pending: (token) => pending(token, method),
      /** Completes the enrollment or says why not; records who enrolled. */
      async consume({ enrollment, identity }, authenticator, details) {
        await deps.changes(async ({ records, audit }) => {
          const outcome: ConsumeOutcome = await records.consume(enrollment, authenticator);
          if (outcome === 'gone') {
            throw new ApiError('INVALID_ENROLLMENT_ALREADY_ENROLLED', { message: 'The token was used (or withdrawn) by another request at the same time' });
          }
          if (outcome === 'conflict') {
            throw new ApiError('COULD_NOT_VALIDATE', {
              message: `The ${conflict.what} is already used by another authenticator`,
              cause: { field: conflict.field, reason: 'is already used by another authenticator' },
            });
          }
          const actor = { id: identity.id, name: identity.name };
          await audit.record(actor, 'enroll', 'enrollment', enrollment.id, { identityId: identity.id, method: enrollment.method, authenticatorId: authenticator.id, ...details });
        });
      },
    };
  }

  return {
    jwks() {
      if (!deps.jwt) throw unavailable();
      return deps.jwt.jwks();
    },

    enroll: (method, token, input) => enrollMethod(method).enroll(contextOf(method), token, input),
  };
}
