/**
 * Extending a certificate authenticator's certificate (spec: Client certificate extension state table):
 *
 * | state                          | trigger                                   | next                           |
 * | current certificate active     | `extend` with a CSR                       | new certificate issued, unverified (old still active) |
 * | new certificate unverified     | `extend-verify` with the returned cert    | new certificate active (old refused) |
 *
 * Only certificates this controller issued are extended, and only over TLS with that very certificate (the
 * reference's rule): the caller proves it holds the key being replaced. Until `extend-verify` the new certificate
 * logs nothing in; after it, only the new one does. An administrator's `request-extend` (optionally rolling keys)
 * shows on the holder's API sessions as `isCertExtendRequested` / `isCertKeyRollRequested` until it verifies.
 */
import type { Actor } from '../../domain/audit.js';
import type { Identity } from '../../domain/identity.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import type { AuthenticatorExtensionRepository, ExtensionState } from '../../persistence/repositories/authenticator-extensions.js';
import { certificateFingerprint, type LoadedCertificateAuthority } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { PresentedClientCertificate } from '../authentication/authentication.js';
import { parseCsr } from '../enrollment/csr.js';
import { issueIdentityCertificate } from '../enrollment/identity-certificate.js';

/** What an API session shows about its login certificate (reference apiSessionDetail). */
export interface CertExtensionFlags {
  isCertExtendable: boolean;
  isCertExtendRequested: boolean;
  isCertKeyRollRequested: boolean;
}

export const NO_EXTENSION: CertExtensionFlags = { isCertExtendable: false, isCertExtendRequested: false, isCertKeyRollRequested: false };

export interface AuthenticatorExtensionService {
  /** `ca`: every trusted CA; `clientCert`: the new leaf then the CA chain. */
  extend(identity: Identity, id: string, clientCertCsr: unknown, presented: PresentedClientCertificate | undefined): Promise<{ ca: string; clientCert: string }>;
  verify(identity: Identity, id: string, clientCert: unknown): Promise<void>;
  /** Management `request-extend`. */
  requestExtend(actor: Actor, id: string, rollKeys: boolean): Promise<void>;
  /** The flags of a session that logged in with authenticator `authenticatorId` by `authMethod`. */
  flagsOf(session: { authMethod: string; authenticatorId: string }): Promise<CertExtensionFlags>;
}

const extendable = (state: ExtensionState) => state.method === 'cert' && state.isIssuedByNetwork;

export function createAuthenticatorExtensionService(deps: {
  authenticators: AuthenticatorExtensionRepository;
  changes: AuditedChanges<AuthenticatorExtensionRepository>;
  signingCa: LoadedCertificateAuthority | undefined;
  caPems: readonly string[];
  clock: Clock;
}): AuthenticatorExtensionService {
  const { authenticators, clock } = deps;

  async function own(identity: Identity, id: string): Promise<ExtensionState> {
    const found = await authenticators.find(id);
    if (!found || found.identityId !== identity.id) throw new ApiError('NOT_FOUND', { message: `No authenticator with id '${id}' belongs to this identity` });
    return found;
  }

  function requireExtendable(state: ExtensionState): void {
    if (extendable(state)) return;
    const reason = state.method === 'cert' ? 'its certificate was not issued by this controller' : `it is a ${state.method} authenticator, not a certificate one`;
    throw new ApiError('AUTHENTICATOR_CANNOT_BE_EXTENDED', { message: `Authenticator '${state.id}' cannot be extended: ${reason}`, cause: { field: 'id', reason, value: state.id } });
  }

  return {
    async extend(identity, id, clientCertCsr, presented) {
      const issuer = deps.signingCa;
      if (!issuer) throw new ApiError('NOT_FOUND', { message: 'Certificate extension is not enabled: the controller configuration has no edge section' });
      const state = await own(identity, id);
      requireExtendable(state);
      if (!presented || !presented.verified || presented.fingerprint !== state.certFingerprint) {
        throw new ApiError('UNAUTHORIZED', {
          message: `Extending authenticator '${id}' needs its current certificate presented in the TLS handshake${presented ? ' (a different or unverified certificate was presented)' : ''}`,
        });
      }
      let csr;
      try {
        csr = await parseCsr(typeof clientCertCsr === 'string' ? clientCertCsr : undefined);
      } catch (error) {
        if (isApiError(error) && error.code === 'MISSING_OR_INVALID_CSR') {
          throw new ApiError('MISSING_OR_INVALID_CSR', { message: `clientCertCsr: ${String(error.cause?.reason ?? '')}`, cause: { ...error.cause, field: 'clientCertCsr' } });
        }
        throw error;
      }
      const { pem, fingerprint } = await issueIdentityCertificate({ identityId: identity.id, publicKey: csr.publicKey, issuer, clock });
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.setUnverified(id, presented.fingerprint, { pem, fingerprint }, clock.now()))) {
          throw new ApiError('UNAUTHORIZED', { message: `Authenticator '${id}' no longer holds the presented certificate` });
        }
        await audit.record({ id: identity.id, name: identity.name }, 'extend', 'authenticator', id, { identityId: identity.id, fingerprint });
      });
      return { ca: deps.caPems.join(''), clientCert: pem + issuer.chainPems.join('') };
    },

    async verify(identity, id, clientCert) {
      const state = await own(identity, id);
      requireExtendable(state);
      const refuse = (reason: string) => new ApiError('INVALID_CLIENT_CERT', { message: `clientCert ${reason}`, cause: { field: 'clientCert', reason } });
      if (!state.unverifiedFingerprint) throw refuse('cannot be verified: no extension of this authenticator is pending (call extend first)');
      let fingerprint: string;
      try {
        fingerprint = certificateFingerprint(typeof clientCert === 'string' ? clientCert : '');
      } catch {
        throw refuse('is not a PEM certificate');
      }
      if (fingerprint !== state.unverifiedFingerprint) throw refuse('is not the certificate the last extend returned');
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.verify(id, fingerprint, clock.now()))) throw refuse('is no longer pending: another request verified or replaced it');
        await audit.record({ id: identity.id, name: identity.name }, 'extend-verify', 'authenticator', id, { identityId: identity.id, fingerprint });
      });
    },

    async requestExtend(actor, id, rollKeys) {
      const state = await authenticators.find(id);
      if (!state) throw new ApiError('NOT_FOUND', { message: `No authenticator with id '${id}'` });
      requireExtendable(state);
      await deps.changes(async ({ records, audit }) => {
        await records.requestExtend(id, rollKeys, clock.now());
        await audit.record(actor, 'request-extend', 'authenticator', id, { identityId: state.identityId, rollKeys });
      });
    },

    async flagsOf({ authMethod, authenticatorId }) {
      if (authMethod !== 'cert' || authenticatorId === '') return NO_EXTENSION;
      const state = await authenticators.find(authenticatorId);
      if (!state || !extendable(state)) return NO_EXTENSION;
      return { isCertExtendable: true, isCertExtendRequested: state.isExtendRequested, isCertKeyRollRequested: state.isKeyRollRequested };
    },
  };
}
