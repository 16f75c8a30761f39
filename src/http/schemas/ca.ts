/**
 * Wire schemas of third-party CAs (management API `/cas`): create takes the certificate, PUT everything else (a new
 * certificate is a new CA), PATCH any subset (all closed); the view adds what the controller decides (fingerprint,
 * verification state and token). Role attributes and the name format are checked by the service, which names the
 * offending item.
 */
import { Type } from 'typebox';
import { EXTERNAL_ID_LOCATIONS, EXTERNAL_ID_MATCHERS, EXTERNAL_ID_PARSERS } from '../../domain/ca.js';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

export const ExternalIdClaim = Type.Object(
  {
    location: Type.Enum([...EXTERNAL_ID_LOCATIONS], { description: 'where the value is read: the subject CN, a URI SAN or an email SAN' }),
    matcher: Type.Enum([...EXTERNAL_ID_MATCHERS], { description: 'which values are kept: ALL, or by PREFIX, SUFFIX or URI SCHEME (matcherCriteria)' }),
    matcherCriteria: Type.String({ maxLength: 1024 }),
    parser: Type.Enum([...EXTERNAL_ID_PARSERS], { description: 'NONE, or SPLIT on parserCriteria' }),
    parserCriteria: Type.String({ maxLength: 1024 }),
    index: Type.Integer({ minimum: 0, maximum: 1000, description: 'which kept value (or part) is the externalId, from 0' }),
  },
  closed,
);

const settings = {
  name: Text(255),
  isAuthEnabled: Type.Boolean({ description: "the CA's certificates may log in once it is verified" }),
  isAutoCaEnrollmentEnabled: Type.Boolean({ description: 'a certificate of the verified CA alone enrolls a new identity (POST /enroll/ca)' }),
  isOttCaEnrollmentEnabled: Type.Boolean({ description: 'ottca enrollments may name this CA' }),
  identityRoles: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 256, description: 'role attributes of identities the CA auto-enrolls' }),
  identityNameFormat: Type.Optional(Text(1024, 'auto-enrolled identity names; placeholders [caName] [caId] [commonName] [requestedName] [identityId]; default [caName]-[commonName]')),
  externalIdClaim: Type.Optional(Type.Union([ExternalIdClaim, Type.Null()])),
  tags: Type.Optional(Tags),
};

export const CaCreateBody = Type.Object({ ...settings, certPem: Text(65_536, 'the PEM certificate of the CA') }, closed);
export const CaUpdateBody = Type.Object(settings, closed);
export const CaPatchBody = Type.Partial(CaUpdateBody, closed);

export const CaView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  certPem: Type.String(),
  fingerprint: Type.String({ description: 'SHA-1 of the certificate' }),
  isVerified: Type.Boolean(),
  verificationToken: Type.String({ description: 'the common name a verification certificate must carry' }),
  isAuthEnabled: Type.Boolean(),
  isAutoCaEnrollmentEnabled: Type.Boolean(),
  isOttCaEnrollmentEnabled: Type.Boolean(),
  identityRoles: Type.Array(Type.String()),
  identityNameFormat: Type.String(),
  externalIdClaim: Type.Union([ExternalIdClaim, Type.Null()]),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
