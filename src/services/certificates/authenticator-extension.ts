/**
 * Extending a certificate authenticator's certificate (spec: Client certificate extension state table):
 *
 * | state                          | trigger                                   | next                           |
 * | current certificate active     | `extend` with a CSR                       | new certificate issued, unverified (old still active) |
 * | new certificate unverified     | `extend-verify` with the returned cert    | new certificate active (old refused) |
 *
 * Only certificates this controller issued are extended, and only over TLS with that very certificate (the
 * reference's rule): the caller proves it holds the key being replaced. The certificate may have expired (renewing
 * is what extension is for): its chain must otherwise lead to the controller's CAs. Until `extend-verify` the new
 * certificate logs nothing in; after it, only the new one does, and the authenticator records whether the key
 * changed. An administrator's `request-extend` (optionally rolling keys) shows on the holder's API sessions, legacy
 * and OIDC, as `isCertExtendRequested` / `isCertKeyRollRequested` until it verifies.
 */
import { X509Certificate } from 'node:crypto';
import type { Actor } from '../../domain/audit.js';
import type { Identity } from '../../domain/identity.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import type { AuthenticatorExtensionRepository, ExtensionState } from '../../persistence/repositories/authenticator-extensions.js';
import { certificateFingerprint, type LoadedCertificateAuthority } from '../../pki/index.js';
import { readCertificates, verifyChain } from '../../pki/chain.js';
import { NO_EXTENSION, type CertExtensionFlags } from '../../domain/authenticator.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { PresentedClientCertificate } from '../authentication/authentication.js';
import { parseCsr } from '../enrollment/csr.js';
import { issueIdentityCertificate } from '../enrollment/identity-certificate.js';

export { NO_EXTENSION, type CertExtensionFlags };

/** How a session logged in: the flags are those of a certificate login's authenticator. */
export interface SessionLogin {
  authMethod: string;
  authenticatorId: string;
}

export interface AuthenticatorExtensionService {
  /** `ca`: every trusted CA; `clientCert`: the new leaf then the CA chain. */
  extend(identity: Identity, id: string, clientCertCsr: unknown, presented: PresentedClientCertificate | undefined): Promise<{ ca: string; clientCert: string }>;
  verify(identity: Identity, id: string, clientCert: unknown): Promise<void>;
  /** Management `request-extend`. */
  requestExtend(actor: Actor, id: string, rollKeys: boolean): Promise<void>;
  /** The flags of a session that logged in with authenticator `authenticatorId` by `authMethod`, read from the store. */
  flagsOf(session: SessionLogin): Promise<CertExtensionFlags>;
  /** The flags at once for a session whose login was not by certificate (none); undefined for one that was (ask `flagsOf`). */
  flagsWithoutStore(session: SessionLogin): CertExtensionFlags | undefined;
  /** The flags of each of `sessions`, in order, in one read (administrators' `/api-sessions`). */
  flagsOfMany(sessions: readonly SessionLogin[]): Promise<CertExtensionFlags[]>;
}

const extendable = (state: ExtensionState) => state.method === 'cert' && state.isIssuedByNetwork;
const isCertLogin = ({ authMethod, authenticatorId }: SessionLogin) => authMethod === 'cert' && authenticatorId !== '';

/** The flags a certificate login's authenticator gives its sessions (none for any other login or authenticator). */
function flagsFrom(state: ExtensionState | undefined): CertExtensionFlags {
  if (!state || !extendable(state)) return NO_EXTENSION;
  return { isCertExtendable: true, isCertExtendRequested: state.isExtendRequested, isCertKeyRollRequested: state.isKeyRollRequested };
}

/**
 * The flags of a session that logged in with `authenticatorId` by `authMethod`, read from the store on every call: an
 * administrator's request-extend shows on the next read here, and at once on every controller sharing the store.
 * The OIDC provider reads them for its tokens' claims through this without the rest of the service.
 */
export function certFlagsReader(authenticators: Pick<AuthenticatorExtensionRepository, 'find'>): (session: SessionLogin) => Promise<CertExtensionFlags> {
  return async (session) => (isCertLogin(session) ? flagsFrom(await authenticators.find(session.authenticatorId)) : NO_EXTENSION);
}

/** The public key (SPKI DER) of a PEM certificate, to tell whether an extension changed the key. */
function publicKeyOf(pem: string | null): Buffer | undefined {
  if (pem === null) return undefined;
  try {
    return new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  } catch {
    return undefined;
  }
}

export function createAuthenticatorExtensionService(deps: {
  authenticators: AuthenticatorExtensionRepository;
  changes: AuditedChanges<AuthenticatorExtensionRepository>;
  signingCa: LoadedCertificateAuthority | undefined;
  caPems: readonly string[];
  clock: Clock;
}): AuthenticatorExtensionService {
  const { authenticators, clock } = deps;
  // The chain of a presented certificate that OpenSSL refused only for its expiry is judged again against these.
  const ownCas = readCertificates(deps.caPems) ?? [];

  /**
   * Whether the presented certificate's chain is acceptable for extending: verified by the TLS layer, or refused by it
   * only because the certificate expired (CERT_HAS_EXPIRED, nothing else) and leading, validity apart, to one of the
   * controller's own CAs. OpenSSL reports one reason per chain, so the path is checked here rather than trusted.
   */
  function chainAcceptable(presented: PresentedClientCertificate): boolean {
    if (presented.verified) return true;
    if (presented.verificationError !== 'CERT_HAS_EXPIRED' || !presented.chain || presented.chain.length === 0) return false;
    const chain = readCertificates(presented.chain);
    if (!chain) return false;
    const now = clock.now();
    const verdict = verifyChain(chain, ownCas, (ca) => ca, now);
    if (verdict.ok) return true;
    // Expired, on a path to one of our CAs: that CA itself must still be valid (only the holder's certificate may lapse).
    return verdict.code === 'CERT_HAS_EXPIRED' && verdict.anchor !== undefined && Date.parse(verdict.anchor.validTo) >= now.getTime();
  }

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
      if (!presented || presented.fingerprint !== state.certFingerprint || !chainAcceptable(presented)) {
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
      // The management view's lastExtendRolledKeys (reference: did the public key change?).
      const before = publicKeyOf(state.certPem);
      const after = publicKeyOf(state.unverifiedPem);
      const rolledKeys = !before || !after || !before.equals(after);
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.verify(id, fingerprint, rolledKeys, clock.now()))) throw refuse('is no longer pending: another request verified or replaced it');
        await audit.record({ id: identity.id, name: identity.name }, 'extend-verify', 'authenticator', id, { identityId: identity.id, fingerprint, rolledKeys });
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

    flagsOf: certFlagsReader(authenticators),
    flagsWithoutStore: (session) => (isCertLogin(session) ? undefined : NO_EXTENSION),

    async flagsOfMany(sessions) {
      const states = await authenticators.findMany(sessions.filter(isCertLogin).map((session) => session.authenticatorId));
      const byId = new Map(states.map((state) => [state.id, state]));
      return sessions.map((session) => (isCertLogin(session) ? flagsFrom(byId.get(session.authenticatorId)) : NO_EXTENSION));
    },
  };
}
