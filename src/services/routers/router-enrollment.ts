/**
 * An edge router's certificates (reference facts §9, spec: Router certificate extension). `enroll` exchanges the
 * router's one-time token (method `erott`) and its two CSRs for a client certificate (to connect to the controller)
 * and a server certificate (for its edge listeners); `extend`, called over TLS with the router's current client
 * certificate, issues new ones. The router record keeps the client certificate and its fingerprint: after an
 * extension the previous certificate matches no router, so it is refused though unexpired.
 *
 * Both writes are conditional (router-certificates.ts), so a token, or a certificate, is used exactly once however
 * many requests race with it; each commits with its audit entry.
 */
import { hashToken } from '../../crypto/secrets.js';
import type { Actor } from '../../domain/audit.js';
import { ApiError } from '../../errors/api-error.js';
import type { RouterCertificateHolder, RouterCertificateRepository } from '../../persistence/repositories/router-certificates.js';
import { certificateFingerprint, issueCertificate, type LoadedCertificateAuthority } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { PresentedClientCertificate } from '../authentication/authentication.js';
import { alreadyUsed } from '../enrollment/enroll.js';
import { checkRouterCsrs, type RouterCsrInput, type ServerNamePolicy } from './router-csrs.js';

/** Lifetime of a router's certificates (the reference issues one year). */
export const ROUTER_CERT_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;

/** Each PEM: the leaf then the signing CA's chain. */
export interface RouterCertificates {
  cert: string;
  serverCert: string;
}

export interface RouterEnrollmentService {
  /** `POST /enroll?method=erott&token=` (and `/enroll/erott`): `ca` is every CA the controller trusts. */
  enroll(token: string, input: RouterCsrInput): Promise<RouterCertificates & { ca: string }>;
  /** `POST /enroll/extend/router`: `presented` is the TLS client certificate of the request. */
  extend(presented: PresentedClientCertificate | undefined, input: RouterCsrInput): Promise<RouterCertificates>;
}

export interface RouterEnrollmentDeps {
  routers: RouterCertificateRepository;
  changes: AuditedChanges<RouterCertificateRepository>;
  /** Undefined without an edge section: router enrollment is then unavailable. */
  signingCa: LoadedCertificateAuthority | undefined;
  caPems: readonly string[];
  /** Which server names the controller keeps from routers (router-csrs.ts). */
  serverNames: ServerNamePolicy;
  clock: Clock;
}

const pem = (cert: { toString(format: 'pem'): string }) => `${cert.toString('pem').trimEnd()}\n`;
const routerActor = (router: RouterCertificateHolder): Actor => ({ id: null, name: `edge-router ${router.name}` });

function invalidToken(): ApiError {
  return new ApiError('INVALID_ENROLLMENT_TOKEN', { cause: { field: 'token', reason: 'no edge router enrollment has this token; it is unknown or was replaced' } });
}

function notAuthenticated(reason: string): ApiError {
  return new ApiError('UNAUTHORIZED', { message: `Extending router certificates needs the router's current client certificate: ${reason}` });
}

export function createRouterEnrollmentService(deps: RouterEnrollmentDeps): RouterEnrollmentService {
  const { routers, clock } = deps;

  function signingCa(): LoadedCertificateAuthority {
    if (deps.signingCa) return deps.signingCa;
    throw new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
  }

  /** Both certificates for router `routerId` from checked CSRs (only keys and server names are taken from them). */
  async function issue(router: RouterCertificateHolder, input: RouterCsrInput) {
    const issuer = signingCa();
    const { client, server, serverNames } = await checkRouterCsrs(input, router.id, deps.serverNames);
    const common = { subject: { commonName: router.id }, validityMs: ROUTER_CERT_VALIDITY_MS, issuer, clock };
    const clientCert = pem(await issueCertificate({ ...common, profile: 'client', publicKey: client.publicKey }));
    const serverCert = pem(await issueCertificate({ ...common, profile: 'server', publicKey: server.publicKey, subjectAltNames: serverNames }));
    const chain = issuer.chainPems.join('');
    return { clientCert, fingerprint: certificateFingerprint(clientCert), certificates: { cert: clientCert + chain, serverCert: serverCert + chain } };
  }

  return {
    async enroll(token, input) {
      signingCa();
      const tokenHash = hashToken(token);
      const router = await routers.findByEnrollmentTokenHash(tokenHash);
      if (!router || !router.enrollmentExpiresAt) {
        const usedAt = router ? undefined : await routers.tokenUsedAt(tokenHash);
        throw usedAt ? alreadyUsed(usedAt) : invalidToken();
      }
      if (router.enrollmentExpiresAt.getTime() <= clock.now().getTime()) {
        throw new ApiError('ENROLLMENT_EXPIRED', {
          message: `The edge router enrollment expired at ${router.enrollmentExpiresAt.toISOString()}; an administrator can re-enroll the router`,
          cause: { field: 'token', reason: 'expired' },
        });
      }
      const issued = await issue(router, input);
      await deps.changes(async ({ records, audit }) => {
        const done = await records.completeEnrollment(router.id, tokenHash, { fingerprint: issued.fingerprint, certPem: issued.clientCert }, clock.now());
        if (!done) throw new ApiError('INVALID_ENROLLMENT_ALREADY_ENROLLED', { message: 'The token was used (or replaced) by another request at the same time' });
        await audit.record(routerActor(router), 'enroll', 'edge-router', router.id, { method: 'erott', fingerprint: issued.fingerprint });
      });
      return { ca: deps.caPems.join(''), ...issued.certificates };
    },

    async extend(presented, input) {
      signingCa();
      if (!presented) throw notAuthenticated('no client certificate was presented in the TLS handshake');
      // An expired or foreign certificate is refused even when it names a router: extension needs a valid one.
      if (!presented.verified) throw notAuthenticated(`the client certificate did not verify (${presented.verificationError ?? 'unknown reason'})`);
      const router = await routers.findByFingerprint(presented.fingerprint);
      if (!router) throw notAuthenticated('the client certificate is not the current certificate of any edge router');
      const issued = await issue(router, input);
      await deps.changes(async ({ records, audit }) => {
        const done = await records.replaceCertificate(router.id, presented.fingerprint, { fingerprint: issued.fingerprint, certPem: issued.clientCert }, clock.now());
        if (!done) throw notAuthenticated('the client certificate was replaced by another request at the same time');
        await audit.record(routerActor(router), 'extend', 'edge-router', router.id, { previousFingerprint: presented.fingerprint, fingerprint: issued.fingerprint });
      });
      return issued.certificates;
    },
  };
}
