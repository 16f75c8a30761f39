/**
 * What external JWT signer management accepts and how it becomes signer fields: the inputs of create, replace (PUT)
 * and patch, their defaults, and the checks JSON Schema cannot make, each a 400 naming its field: exactly one key
 * source, a certificate that parses and holds a key able to verify JWTs, JWKS and login URLs of the right scheme.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { DEFAULT_CLAIMS_PROPERTY, type ExternalJwtSigner, type TargetToken } from '../../domain/external-jwt-signer.js';
import { ApiError } from '../../errors/api-error.js';
import { pemBlocks } from '../../pki/pem.js';
import { addressRefusal } from '../../policy/fetch-address.js';

/** A whole signer (create and PUT); absent optional fields take their defaults. */
export interface ExternalJwtSignerInput {
  name: string;
  issuer: string;
  audience: string;
  enabled: boolean;
  certPem?: string | null;
  jwksEndpoint?: string | null;
  kid?: string | null;
  claimsProperty?: string;
  useExternalId?: boolean;
  externalAuthUrl?: string | null;
  clientId?: string | null;
  scopes?: string[];
  targetToken?: TargetToken;
  tags?: ExternalJwtSigner['tags'];
}

/** Any subset (PATCH); null clears a nullable field. */
export type ExternalJwtSignerPatch = Partial<ExternalJwtSignerInput>;

/** The fields management sets, as stored. */
export type ExternalJwtSignerFields = Omit<ExternalJwtSigner, 'id' | 'createdAt' | 'updatedAt'>;

/** A whole input as stored fields, defaults filled in. */
export function signerFields(input: ExternalJwtSignerInput): ExternalJwtSignerFields {
  return {
    name: input.name,
    issuer: input.issuer,
    audience: input.audience,
    enabled: input.enabled,
    certPem: input.certPem ?? null,
    jwksEndpoint: input.jwksEndpoint ?? null,
    kid: input.kid ?? null,
    claimsProperty: input.claimsProperty ?? DEFAULT_CLAIMS_PROPERTY,
    useExternalId: input.useExternalId ?? false,
    externalAuthUrl: input.externalAuthUrl ?? null,
    clientId: input.clientId ?? null,
    scopes: [...new Set(input.scopes ?? [])],
    targetToken: input.targetToken ?? 'ACCESS',
    tags: input.tags ?? {},
  };
}

/** The stored fields after a PATCH of `current`: given fields win, null included. */
export function patchedSignerFields(current: ExternalJwtSigner, patch: ExternalJwtSignerPatch): ExternalJwtSignerFields {
  const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...fields } = current;
  const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  return signerFields({ ...fields, ...given });
}

function invalid(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason: `${field} ${reason}`, value } });
}

/** Why a certificate cannot be a signer's key, or undefined when it can (one PEM certificate, RSA/EC/Ed25519 key). */
function certificateProblem(pem: string): string | undefined {
  const blocks = pemBlocks(pem);
  if (blocks.length !== 1 || blocks[0]?.label !== 'CERTIFICATE') return 'must hold exactly one PEM certificate (-----BEGIN CERTIFICATE-----)';
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (error) {
    return `is not an X.509 certificate: ${error instanceof Error ? error.message : String(error)}`;
  }
  const type = certificate.publicKey.asymmetricKeyType;
  if (!['rsa', 'rsa-pss', 'ec', 'ed25519'].includes(type ?? '')) return `has a ${type ?? 'unknown'} key; only RSA, EC and Ed25519 keys can verify JWTs`;
  return undefined;
}

/** Why a URL is unfit for `field`, or undefined; `http` only where `allowHttp` says so. */
function urlProblem(text: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) return allowHttp ? 'must be an https or http URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  return undefined;
}

/**
 * Throws 400 COULD_NOT_VALIDATE naming the field when `fields` cannot make a signer. `allowHttpJwks` is
 * edge.externalJwt.allowHttpJwks; a JWKS endpoint whose host is a literal link-local address is refused at once.
 */
export function checkSignerFields(fields: ExternalJwtSignerFields, options: { allowHttpJwks: boolean }): void {
  if (fields.certPem !== null && fields.jwksEndpoint !== null) {
    throw invalid('jwksEndpoint', 'cannot be set together with certPem: a signer has exactly one key source', fields.jwksEndpoint);
  }
  if (fields.certPem === null && fields.jwksEndpoint === null) throw invalid('certPem', 'or jwksEndpoint is required: a signer needs one key source');
  if (fields.certPem !== null) {
    const problem = certificateProblem(fields.certPem);
    if (problem) throw invalid('certPem', problem);
  }
  if (fields.jwksEndpoint !== null) {
    const problem = urlProblem(fields.jwksEndpoint, options.allowHttpJwks);
    if (problem) {
      const hint = options.allowHttpJwks ? '' : ' (http needs edge.externalJwt.allowHttpJwks)';
      throw invalid('jwksEndpoint', `${problem}${problem.includes('https') ? hint : ''}`, fields.jwksEndpoint);
    }
    const host = new URL(fields.jwksEndpoint).hostname.replace(/^\[|\]$/g, '');
    const refusal = isIP(host) ? addressRefusal(host, false) : undefined;
    if (refusal) throw invalid('jwksEndpoint', `is refused: ${refusal}`, fields.jwksEndpoint);
  }
  if (fields.externalAuthUrl !== null) {
    const problem = urlProblem(fields.externalAuthUrl, true);
    if (problem) throw invalid('externalAuthUrl', problem, fields.externalAuthUrl);
  }
  if (fields.claimsProperty.trim() === '' || fields.claimsProperty === '/') throw invalid('claimsProperty', 'must name a claim, e.g. sub or /sub', fields.claimsProperty);
}

/** The settings of a signer for the audit trail: no certificate body (its presence only), nothing secret. */
export function signerAuditDetails(signer: ExternalJwtSignerFields): Record<string, unknown> {
  const { certPem, tags: _tags, ...settings } = signer;
  return { ...settings, certPem: certPem === null ? null : 'set' };
}
