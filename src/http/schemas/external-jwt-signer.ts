/**
 * Wire schemas of external JWT signers: the management bodies (create and PUT take the whole signer, PATCH any
 * subset; closed), the management view, the client view (which declares no key, issuer or claim setting, so the
 * output filter can never send them), and the `check` diagnostic's body and answer.
 */
import { Type } from 'typebox';
import { TARGET_TOKENS } from '../../domain/external-jwt-signer.js';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const Nullable = (maxLength: number, description?: string) => Type.Union([Text(maxLength, description), Type.Null()]);
const TargetToken = Type.Enum([...TARGET_TOKENS], { description: 'which token of the provider clients send: ACCESS (default) or ID' });
const Scopes = Type.Array(Text(255), { maxItems: 64 });

const signerFields = {
  name: Text(255),
  issuer: Text(2048, "must equal the tokens' iss"),
  audience: Text(2048, "must be one of the tokens' aud values"),
  enabled: Type.Boolean(),
  certPem: Type.Optional(Nullable(65_536, 'PEM certificate whose key verifies the tokens; or give jwksEndpoint')),
  jwksEndpoint: Type.Optional(Nullable(2048, 'https URL of the JWKS; or give certPem')),
  kid: Type.Optional(Nullable(255, 'the kid tokens of a certPem signer carry')),
  claimsProperty: Type.Optional(Text(255, 'claim naming the identity: sub (default) or a JSON pointer such as /user/id')),
  useExternalId: Type.Optional(Type.Boolean({ description: "match the claim to the identity's externalId instead of its id" })),
  externalAuthUrl: Type.Optional(Nullable(2048, 'where clients log in to the provider')),
  clientId: Type.Optional(Nullable(255)),
  scopes: Type.Optional(Scopes),
  targetToken: Type.Optional(TargetToken),
  tags: Type.Optional(Tags),
};

/** Create and PUT: the whole signer; absent optional fields take their defaults. */
export const ExternalJwtSignerBody = Type.Object(signerFields, closed);
/** PATCH: any subset; null clears a nullable field. */
export const ExternalJwtSignerPatchBody = Type.Partial(ExternalJwtSignerBody, closed);

const NullableText = Type.Union([Type.String(), Type.Null()]);

/** What anyone may see of an enabled signer (client API): how to log in with it, nothing about verification. */
const publicProperties = {
  id: Type.String(),
  name: Type.String(),
  externalAuthUrl: NullableText,
  clientId: NullableText,
  scopes: Type.Array(Type.String()),
  audience: NullableText,
  targetToken: Type.String(),
  // Enrolling new identities by a provider's JWT is not offered (reference enrollToCertEnabled/TokenEnabled).
  enrollToCertEnabled: Type.Boolean(),
  enrollToTokenEnabled: Type.Boolean(),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
};

export const ClientExternalJwtSignerView = Type.Object(publicProperties);

const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const ExternalJwtSignerView = Type.Object({
  ...publicProperties,
  issuer: Type.String(),
  enabled: Type.Boolean(),
  certPem: NullableText,
  jwksEndpoint: NullableText,
  kid: NullableText,
  claimsProperty: Type.String(),
  useExternalId: Type.Boolean(),
  // Read from certPem; a JWKS signer has no one certificate: '' and null (decision 0010).
  commonName: Type.String({ description: "the certificate's subject CN; '' for a JWKS signer" }),
  fingerprint: Type.Union([Type.String(), Type.Null()], { description: 'SHA-1 of the certificate; null for a JWKS signer' }),
  notBefore: NullableDateTime,
  notAfter: NullableDateTime,
});

export const ExtJwtCheckBody = Type.Object({ token: Text(65_536, 'the JWT to check') }, closed);

export const ExtJwtCheckView = Type.Object({
  ok: Type.Boolean(),
  check: Type.Optional(Type.String({ description: 'the first check that failed' })),
  message: Type.String(),
  identityId: Type.Optional(Type.String()),
  identityName: Type.Optional(Type.String()),
  claims: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
