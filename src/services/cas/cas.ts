/**
 * CA management (`/edge/management/v1/cas`, administrators): the resource kit's list, read, create, replace, patch
 * and delete, plus `verify` (proof that the registrant holds the CA's key: a certificate the CA signed whose common
 * name is the CA's verification token) and the CA's enrollment JWT. A CA's changes are trust changes: each leaves a
 * log line, and every controller's trusted set follows through the change log (decision 0037).
 */
import { X509Certificate } from 'node:crypto';
import type { Actor } from '../../domain/audit.js';
import type { CertificateAuthority } from '../../domain/ca.js';
import { ApiError } from '../../errors/api-error.js';
import { CA_TABLE, type CaRepository } from '../../persistence/repositories/cas.js';
import { pemBlocks } from '../../pki/pem.js';
import { certificateFingerprint } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { newUuid } from '../../shared/random.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { SecurityEvents } from '../audit/security-events.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';
import { ENROLLMENT_AUDIENCE } from '../enrollment/enrollment-jwt.js';
import { caAuditDetails, caCertificate, caFields, checkCaFields, ownCaRefused, patchedCaFields, type CaFields, type CaInput, type CaPatch } from './ca-input.js';

export type { CaInput, CaPatch } from './ca-input.js';

/** What signs a CA's enrollment JWT: the enrollment JWT signer's key (enrollment-jwt.ts). */
export interface CaJwtSigner {
  readonly issuer: string;
  signBytes(data: Uint8Array): Promise<{ algorithm: string; kid: string; signature: Buffer }>;
}

/** The resource kit's operations (a PUT keeps the certificate whatever it sends), verification and the CA JWT. */
export interface CaService extends ResourceService<CertificateAuthority, CaInput, CaPatch> {
  /**
   * Verifies the CA with `pem`: one certificate, signed by the CA, whose common name is the verification token.
   * 409 CA_ALREADY_VERIFIED; 400 EXPECTED_PEM_CERTIFICATE, CERTIFICATE_FAILED_VALIDATION or INVALID_COMMON_NAME.
   */
  verify(actor: Actor, id: string, pem: string | undefined): Promise<CertificateAuthority>;
  /** The CA's enrollment JWT (claims em = ca, iss, sub = jti = the CA id, aud; no exp: reference facts). */
  jwt(id: string): Promise<string>;
}

export interface CaServiceDeps {
  cas: CaRepository;
  changes: AuditedChanges<Pick<CaRepository, 'insert' | 'update' | 'delete' | 'markVerified'>>;
  events: Pick<SecurityEvents, 'trustChanged'>;
  clock: Clock;
  /** Undefined without an `edge` section: the CA JWT is then unavailable. */
  jwtSigner: CaJwtSigner | undefined;
  /** Whether a certificate holds the key of one of the controller's own CAs (ca-trust.ts), which is never a third-party CA. */
  isOwnCa(certificate: X509Certificate): boolean;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

function notPem(reason: string): ApiError {
  return new ApiError('EXPECTED_PEM_CERTIFICATE', { cause: { field: 'body', reason } });
}

export function createCaService(deps: CaServiceDeps): CaService {
  const { cas, clock, events } = deps;

  const managed = resourceService<CertificateAuthority, CaFields, CaInput, CaPatch, ResourceScope<CertificateAuthority>>(
    { repository: cas, fields: CA_TABLE.fields, work: deps.changes, clock },
    {
      entityType: 'ca',
      label: 'CA',
      fields: (input) => caFields(input),
      patched: patchedCaFields,
      created: (fields, id, now) => ({
        ...fields,
        id,
        fingerprint: certificateFingerprint(fields.certPem),
        isVerified: false,
        verificationToken: newUuid(),
        createdAt: now,
        updatedAt: now,
      }),
      async check(fields, current) {
        checkCaFields(fields, current);
        if (current) return;
        const certificate = caCertificate(fields.certPem, clock.now());
        if (deps.isOwnCa(certificate)) throw ownCaRefused();
        const fingerprint = certificateFingerprint(fields.certPem);
        const registered = await cas.findByFingerprint(fingerprint);
        if (registered) {
          throw new ApiError('COULD_NOT_VALIDATE', {
            message: `The request is invalid: certPem is already registered as CA '${registered.name}'`,
            cause: { field: 'certPem', reason: 'is already registered', value: fingerprint },
          });
        }
      },
      auditDetails: caAuditDetails,
      committed: (actor, action, ca) => events.trustChanged({ actor, entityType: 'ca', entityId: ca.id, action }),
    },
  );

  return {
    ...managed,
    async replace(actor, id, input) {
      const current = await managed.found(id);
      return managed.replace(actor, id, { ...input, certPem: current.certPem });
    },

    async verify(actor, id, pem) {
      const ca = await managed.found(id);
      if (ca.isVerified) throw new ApiError('CA_ALREADY_VERIFIED', { message: `The CA '${ca.name}' is already verified`, cause: { field: 'id', value: id } });
      if (pem === undefined || pem.trim() === '') throw notPem('the body is empty: send the PEM verification certificate as text/plain');
      const blocks = pemBlocks(pem);
      if (blocks.length !== 1 || blocks[0]?.label !== 'CERTIFICATE') throw notPem('must hold exactly one PEM certificate (-----BEGIN CERTIFICATE-----)');
      let certificate: X509Certificate;
      try {
        certificate = new X509Certificate(pem);
      } catch {
        throw notPem('the PEM block is not a DER-encoded X.509 certificate');
      }
      const caCert = new X509Certificate(ca.certPem);
      let signed: boolean;
      try {
        signed = certificate.checkIssued(caCert) && certificate.verify(caCert.publicKey);
      } catch {
        signed = false;
      }
      if (!signed) throw new ApiError('CERTIFICATE_FAILED_VALIDATION', { cause: { field: 'body', reason: `the certificate was not signed by the key of CA '${ca.name}'` } });
      const commonName = /^CN=(.*)$/m.exec(certificate.subject)?.[1] ?? '';
      if (commonName !== ca.verificationToken) {
        throw new ApiError('INVALID_COMMON_NAME', { cause: { field: 'body', reason: `the common name is '${commonName}', not the CA's verificationToken`, value: commonName } });
      }
      const now = clock.now();
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.markVerified(id, now))) throw new ApiError('CA_ALREADY_VERIFIED', { message: `The CA '${ca.name}' is already verified`, cause: { field: 'id', value: id } });
        await audit.record(actor, 'verify', 'ca', id, { name: ca.name, fingerprint: ca.fingerprint });
      });
      events.trustChanged({ actor, entityType: 'ca', entityId: id, action: 'verify' });
      return { ...ca, isVerified: true, updatedAt: now };
    },

    async jwt(id) {
      const ca = await managed.found(id);
      const signer = deps.jwtSigner;
      if (!signer) throw new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
      const now = Math.floor(clock.now().getTime() / 1000);
      const payload = { em: 'ca', iss: `${signer.issuer}/`, sub: ca.id, jti: ca.id, aud: [ENROLLMENT_AUDIENCE], iat: now };
      // The header's alg and kid are the signer's; the signature is made over the JWS signing input (RFC 7515 §5.1).
      const probe = await signer.signBytes(Buffer.alloc(0));
      const input = `${b64url(JSON.stringify({ alg: probe.algorithm, kid: probe.kid, typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}`;
      const { signature } = await signer.signBytes(Buffer.from(input));
      return `${input}.${b64url(signature)}`;
    },
  };
}
