/**
 * What CA management accepts and how it becomes CA fields: the inputs of create, replace (PUT) and patch, their
 * defaults, and the checks JSON Schema cannot make, each a 400 naming its field: the certificate is one PEM
 * certificate of a CA (basicConstraints cA), within its validity window, and (judged by the service) none of the
 * controller's own CAs; role attributes follow the role rules; the name format uses only the reference's
 * placeholders; an externalIdClaim is complete.
 */
import { X509Certificate } from 'node:crypto';
import {
  DEFAULT_IDENTITY_NAME_FORMAT,
  IDENTITY_NAME_PLACEHOLDERS,
  type CertificateAuthority,
  type ExternalIdClaim,
} from '../../domain/ca.js';
import { ApiError } from '../../errors/api-error.js';
import { pemBlocks } from '../../pki/pem.js';
import { checkRoleAttributes } from '../role-attribute-input.js';

/** A whole CA (create, and PUT without certPem); absent optional fields take their defaults. */
export interface CaInput {
  name: string;
  /** Required on create; a PUT keeps the certificate (a new certificate is a new CA). */
  certPem?: string;
  isAuthEnabled: boolean;
  isAutoCaEnrollmentEnabled: boolean;
  isOttCaEnrollmentEnabled: boolean;
  identityRoles: string[];
  identityNameFormat?: string;
  externalIdClaim?: ExternalIdClaim | null;
  tags?: CertificateAuthority['tags'];
}

/** PATCH: any subset of a whole CA but its certificate. */
export type CaPatch = Partial<Omit<CaInput, 'certPem'>>;

/** The fields management sets, as stored (verification state and the certificate's fingerprint are the service's). */
export type CaFields = Omit<CertificateAuthority, 'id' | 'createdAt' | 'updatedAt' | 'isVerified' | 'verificationToken' | 'fingerprint'>;

function invalid(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason: `${field} ${reason}`, ...(value === undefined ? {} : { value }) } });
}

/** A whole input as stored fields, defaults filled in; `certPem` is kept as given (the current one on PUT). */
export function caFields(input: CaInput): CaFields {
  return {
    name: input.name,
    certPem: input.certPem ?? '',
    isAuthEnabled: input.isAuthEnabled,
    isAutoCaEnrollmentEnabled: input.isAutoCaEnrollmentEnabled,
    isOttCaEnrollmentEnabled: input.isOttCaEnrollmentEnabled,
    identityRoles: input.identityRoles,
    identityNameFormat: input.identityNameFormat ?? DEFAULT_IDENTITY_NAME_FORMAT,
    externalIdClaim: input.externalIdClaim ?? null,
    tags: input.tags ?? {},
  };
}

/** The stored fields after a PATCH of `current`: given fields win (null clears externalIdClaim). */
export function patchedCaFields(current: CertificateAuthority, patch: CaPatch): CaFields {
  const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  return caFields({ ...current, ...given });
}

/**
 * The CA certificate of `pem`, or a 400 naming `certPem`: exactly one PEM certificate, a CA, valid at `now`.
 * Only the certificate is read: a private key pasted along is refused rather than stored.
 */
export function caCertificate(pem: string, now: Date): X509Certificate {
  const blocks = pemBlocks(pem);
  if (blocks.some((block) => block.label.includes('PRIVATE KEY'))) throw invalid('certPem', 'must not hold a private key; send the CA certificate only');
  if (blocks.length !== 1 || blocks[0]?.label !== 'CERTIFICATE') throw invalid('certPem', 'must hold exactly one PEM certificate (-----BEGIN CERTIFICATE-----)');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (error) {
    throw invalid('certPem', `is not an X.509 certificate: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!certificate.ca) throw invalid('certPem', 'is not a CA certificate (its basic constraints do not say cA: TRUE)');
  if (new Date(certificate.validTo).getTime() < now.getTime()) throw invalid('certPem', `has expired (not after ${new Date(certificate.validTo).toISOString()})`);
  if (new Date(certificate.validFrom).getTime() > now.getTime()) throw invalid('certPem', `is not valid yet (not before ${new Date(certificate.validFrom).toISOString()})`);
  return certificate;
}

/**
 * The refusal of one of the controller's own CAs as a third-party CA: it would apply a third-party CA's settings
 * (auto-enrollment, externalIdClaim, identity roles) to every certificate the controller issues, routers' included
 * (decision 0056). The caller compares by key, so a re-issued or cross-signed copy of an own CA is refused too.
 */
export function ownCaRefused(): ApiError {
  return invalid('certPem', "is one of this controller's own CAs (its CA bundle, enrollment signing chain or a server certificate's issuer); register only the CAs of another PKI");
}

/** Throws 400 COULD_NOT_VALIDATE naming the field when `fields` cannot make a CA (the certificate is checked apart). */
export function checkCaFields(fields: CaFields, current?: Pick<CaFields, 'identityRoles'>): void {
  checkRoleAttributes(fields.identityRoles, { field: 'identityRoles', kept: current?.identityRoles });
  const format = fields.identityNameFormat;
  if (format.trim() === '') throw invalid('identityNameFormat', 'must not be empty');
  const unknown = [...format.matchAll(/\[[^\]]*\]/g)].map((match) => match[0]).find((symbol) => !(IDENTITY_NAME_PLACEHOLDERS as readonly string[]).includes(symbol));
  if (unknown) throw invalid('identityNameFormat', `uses ${unknown}, which is not a placeholder; use ${IDENTITY_NAME_PLACEHOLDERS.join(', ')}`, format);
  const claim = fields.externalIdClaim;
  if (claim) {
    if (claim.matcher !== 'ALL' && claim.matcherCriteria === '') throw invalid('externalIdClaim.matcherCriteria', `is required with matcher ${claim.matcher}`);
    if (claim.parser === 'SPLIT' && claim.parserCriteria === '') throw invalid('externalIdClaim.parserCriteria', 'is required with parser SPLIT');
  }
}

/** The settings of a CA for the audit trail: no certificate body (its fingerprint says which). */
export function caAuditDetails(ca: CertificateAuthority): Record<string, unknown> {
  const { certPem: _certPem, tags: _tags, verificationToken: _token, createdAt: _c, updatedAt: _u, id: _id, ...settings } = ca;
  return settings;
}
