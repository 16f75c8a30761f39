/**
 * Ephemeral certificates (spec: Current API Session, ephemeral certificates): a client with an API session sends a
 * CSR and gets a short-lived client certificate bound to that session; it keeps the key. The certificate is
 * accepted only while its session lives: a TLS client presenting it without a session token is authenticated as
 * that (legacy) session (`sessionTokenHashOf`, used by request authentication), and once the session ends (logout,
 * timeout, removal) it names nothing and is refused, though unexpired (decision 0038). Another session's
 * certificate is not found, never forbidden.
 */
import { hashToken } from '../../crypto/secrets.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { SESSION_CERTIFICATE_FIELDS, type SessionCertificate, type SessionCertificateRepository } from '../../persistence/repositories/api-session-certificates.js';
import { certificateFingerprint, issueCertificate, type LoadedCertificateAuthority } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { PresentedClientCertificate } from '../authentication/authentication.js';
import type { AuthContext } from '../authentication/request-auth.js';
import { parseCsr } from '../enrollment/csr.js';
import { isLimited, limitReached, MAX_CERTIFICATES_PER_API_SESSION } from '../client-limits.js';
import type { ListPage } from '../list-page.js';

export type { SessionCertificate } from '../../persistence/repositories/api-session-certificates.js';

/** How long an ephemeral certificate is valid at most; its session ending refuses it sooner. */
export const SESSION_CERT_VALIDITY_MS = 12 * 60 * 60 * 1000;

type SessionCaller = Pick<AuthContext, 'kind' | 'token' | 'session' | 'identity'>;

export interface SessionCertificateService {
  /**
   * Issues a certificate for the CSR's key; `certificate` is the leaf then the CA chain, `cas` every trusted CA. A
   * non-administrator's API session holds at most MAX_CERTIFICATES_PER_API_SESSION unexpired ones (409 beyond).
   */
  create(caller: SessionCaller, csrPem: unknown): Promise<{ id: string; certificate: string; cas: string }>;
  list(caller: SessionCaller, params: RawListParams): Promise<ListPage<SessionCertificate>>;
  get(caller: SessionCaller, id: string): Promise<SessionCertificate>;
  delete(caller: SessionCaller, id: string): Promise<void>;
  /**
   * The token hash of the legacy session a presented client certificate is an ephemeral certificate of, when the
   * TLS chain verified and the certificate is within its validity; undefined otherwise (not one of ours).
   */
  sessionTokenHashOf(presented: PresentedClientCertificate): Promise<string | undefined>;
}

export function createSessionCertificateService(deps: {
  certificates: SessionCertificateRepository;
  signingCa: LoadedCertificateAuthority | undefined;
  caPems: readonly string[];
  clock: Clock;
}): SessionCertificateService {
  const { certificates, clock } = deps;

  async function own(caller: SessionCaller, id: string): Promise<SessionCertificate> {
    const found = await certificates.find(caller.session.id, id);
    if (!found) throw new ApiError('NOT_FOUND', { message: `No certificate with id '${id}' belongs to this API session` });
    return found;
  }

  /**
   * What a certificate of the caller's session authenticates as: the legacy token's hash. A caller that presented an
   * ephemeral certificate instead of the token (`token` '') takes the hash that certificate recorded. An OIDC session
   * has no token of its own to authenticate as (decision 0038): null.
   */
  async function sessionTokenHash(caller: SessionCaller): Promise<string | null> {
    if (caller.kind !== 'legacy') return null;
    if (caller.token !== '') return hashToken(caller.token);
    const recorded = await certificates.tokenHashOfSession(caller.session.id);
    if (recorded === undefined) throw new Error(`legacy session ${caller.session.id} was authenticated without a token or a certificate of it`);
    return recorded;
  }

  return {
    async create(caller, csrPem) {
      const issuer = deps.signingCa;
      if (!issuer) throw new ApiError('NOT_FOUND', { message: 'Ephemeral certificates are not enabled: the controller configuration has no edge section' });
      // Counted before the CSR is read or anything signed: a refused request costs one read (decision 0058).
      if (isLimited(caller)) {
        const held = await certificates.countUnexpired(caller.session.id, clock.now());
        if (held >= MAX_CERTIFICATES_PER_API_SESSION) {
          throw limitReached('certificates', held, MAX_CERTIFICATES_PER_API_SESSION, 'delete those no longer used (DELETE /current-api-session/certificates/{id})');
        }
      }
      const csr = await parseCsr(typeof csrPem === 'string' ? csrPem : undefined);
      const id = newEntityId();
      const { identity, session } = caller;
      const cert = await issueCertificate({
        profile: 'client',
        publicKey: csr.publicKey,
        subject: { commonName: identity.id },
        // The reference's form of an API session certificate's SPIFFE id, brand renamed.
        subjectAltNames: { uri: [`spiffe://svc/identity/${identity.id}/apiSession/${session.id}/apiSessionCertificate/${id}`] },
        validityMs: SESSION_CERT_VALIDITY_MS,
        issuer,
        clock,
      });
      const leafPem = `${cert.toString('pem').trimEnd()}\n`;
      await certificates.insert({
        id,
        apiSessionId: session.id,
        identityId: identity.id,
        sessionTokenHash: await sessionTokenHash(caller),
        subject: cert.subject,
        fingerprint: certificateFingerprint(leafPem),
        certPem: leafPem,
        validFrom: cert.notBefore,
        validTo: cert.notAfter,
        createdAt: clock.now(),
      });
      return { id, certificate: leafPem + issuer.chainPems.join(''), cas: deps.caPems.join('') };
    },
    async list(caller, params) {
      const query = parseListParams(params, SESSION_CERTIFICATE_FIELDS);
      const { items, totalCount } = await certificates.list(caller.session.id, query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(SESSION_CERTIFICATE_FIELDS) };
    },
    get: own,
    async delete(caller, id) {
      await own(caller, id);
      await certificates.delete(caller.session.id, id);
    },
    async sessionTokenHashOf(presented) {
      if (!presented.verified) return undefined;
      const found = await certificates.findByFingerprint(presented.fingerprint);
      if (!found || found.sessionTokenHash === null) return undefined;
      const now = clock.now().getTime();
      if (now < found.validFrom.getTime() || now > found.validTo.getTime()) return undefined;
      return found.sessionTokenHash;
    },
  };
}
