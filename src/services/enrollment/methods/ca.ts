/**
 * Enrollment method `ca`, CA auto-enrollment (reference facts §9; authorization-and-routers facts C): no token and no
 * CSR. A client connects with a certificate from a verified third-party CA that allows auto-enrollment, and the
 * controller creates its identity: named by the CA's `identityNameFormat` (a name in use gets a six-digit suffix, as
 * in the reference), with the CA's `identityRoles` as role attributes and, when the CA has an `externalIdClaim`, the
 * externalId read from the certificate; the certificate becomes its certificate authenticator.
 *
 * Refusals: no verified auto-enrollment CA issued the certificate (400 ENROLLMENT_NO_VALID_CAS); the chain does not
 * verify (400 CERT_FAILED_VALIDATION); the certificate is already an authenticator's (409 CERT_IN_USE).
 */
import { randomInt } from 'node:crypto';
import { DEFAULT_AUTH_POLICY_ID } from '../../../domain/auth-policy.js';
import { newIdentity } from '../../../domain/identity.js';
import { ApiError } from '../../../errors/api-error.js';
import { nameProblem } from '../../../policy/names.js';
import { newEntityId } from '../../../shared/random.js';
import { commonNameOf, externalIdOf, identityName } from '../../cas/identity-from-certificate.js';
import type { EnrollMethod } from './enroll-method.js';
import type { CaEnrollResult } from './ottca.js';
import { acceptedChain, presentedChain, type PresentedChainInput } from './presented-certificate.js';

/** Besides the certificate: the name the client asks for (`[requestedName]` of the name format). */
export interface CaAutoInput extends PresentedChainInput {
  requestedName?: string;
}

/** Names tried when the formatted one is taken: the reference appends six random digits. */
const NAME_ATTEMPTS = 4;

function noValidCa(reason: string): ApiError {
  return new ApiError('ENROLLMENT_NO_VALID_CAS', { cause: { field: 'clientCertificate', reason } });
}

export const caEnrollment: EnrollMethod<CaAutoInput, CaEnrollResult> = {
  name: 'ca',
  authenticator: { method: 'cert', kind: 'certificate' },
  conflict: { field: 'clientCertificate', what: 'certificate' },
  takesUsername: false,
  administered: false,
  // The token argument is unused: the certificate is the credential.
  async enroll(context, _token, input) {
    const { cas, clock } = context;
    if (!cas) throw context.unavailable();
    const chain = presentedChain(input);
    const candidates = (await cas.verified()).filter((trusted) => trusted.ca.isAutoCaEnrollmentEnabled);
    if (candidates.length === 0) throw noValidCa('no verified CA allows auto-enrollment (isAutoCaEnrollmentEnabled)');
    const none = (reason: string) => noValidCa(`${reason}: no verified CA that allows auto-enrollment issued it`);
    const { trusted, leafPem, fingerprint, leaf } = await acceptedChain(chain, candidates, clock.now(), cas, none);
    const { ca } = trusted;

    const identityId = newEntityId();
    const claim = ca.externalIdClaim;
    const externalId = claim ? externalIdOf(leaf, claim) : undefined;
    if (claim && externalId === undefined) {
      throw new ApiError('CERT_FAILED_VALIDATION', { cause: { field: 'clientCertificate', reason: `the certificate has no value at the CA's externalIdClaim (${claim.location}, index ${claim.index})` } });
    }
    const base = identityName(ca, { commonName: commonNameOf(leaf), requestedName: input.requestedName ?? '', identityId });
    const problem = nameProblem(base);
    if (problem) throw new ApiError('COULD_NOT_VALIDATE', { message: `The identity name '${base}' (from the CA's identityNameFormat) ${problem}`, cause: { field: 'name', reason: problem, value: base } });

    const now = clock.now();
    for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
      const name = attempt === 0 ? base : `${base}${String(randomInt(1_000_000)).padStart(6, '0')}`;
      const identity = newIdentity(
        { id: identityId, name, typeId: 'Default', isAdmin: false, roleAttributes: [...ca.identityRoles], authPolicyId: DEFAULT_AUTH_POLICY_ID, externalId: externalId ?? null, tags: {} },
        now,
      );
      const authenticator = { id: newEntityId(), identityId, certFingerprint: fingerprint, certPem: leafPem, caId: ca.id, createdAt: now };
      const outcome = await cas.enrollIdentity(identity, authenticator, { fingerprint, caId: ca.id, name });
      if (outcome === 'enrolled') return { identityId };
    }
    throw new ApiError('COULD_NOT_VALIDATE', { message: `No free identity name was found from '${base}'`, cause: { field: 'name', reason: 'is already in use', value: base } });
  },
};
