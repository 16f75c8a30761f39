/**
 * The API session as both Edge APIs show it: the answer of `authenticate` and of `GET /current-api-session`, for a
 * legacy session and for an OIDC one alike (reference currentApiSessionDetail = apiSessionDetail + expiresAt,
 * expirationSeconds). Every field the reference requires is declared, so the served OpenAPI document lists it and the
 * serializer refuses a view that lacks one. Values the controller cannot know yet are neutral (decision 0010).
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';
import { EntityRef } from './identity.js';

/** One outstanding secondary factor (reference authQueryDetail). */
const AuthQuery = Type.Object({
  typeId: Type.String({ description: 'MFA or EXT-JWT' }),
  provider: Type.String(),
  id: Type.Optional(Type.String({ description: 'EXT-JWT: the signer whose JWT is wanted' })),
  format: Type.Optional(Type.String()),
  httpMethod: Type.Optional(Type.String()),
  httpUrl: Type.Optional(Type.String()),
  minLength: Type.Optional(Type.Integer()),
  maxLength: Type.Optional(Type.Integer()),
});

export const CurrentApiSessionDetail = Type.Object({
  id: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
  token: Type.String({ description: 'the credential naming the session: the legacy session token, or the access token presented' }),
  identityId: Type.String(),
  identity: EntityRef,
  authMethod: Type.String({ description: 'password, cert or ext-jwt' }),
  authenticatorId: Type.String({ description: "the authenticator of the login; '' when the session does not record it (OIDC sessions opened before it was recorded)" }),
  configTypes: Type.Array(Type.String(), { description: 'as asked for at login' }),
  ipAddress: Type.String({ description: "where the login came from; '' when unknown" }),
  authQueries: Type.Array(AuthQuery),
  isMfaRequired: Type.Boolean(),
  isMfaComplete: Type.Boolean(),
  isCertExtendable: Type.Boolean({ description: 'the login certificate was issued by the controller, so it can be extended' }),
  isCertExtendRequested: Type.Boolean({ description: 'an administrator asked for the login certificate to be extended' }),
  isCertKeyRollRequested: Type.Boolean({ description: 'an administrator asked for the extension to use a new key' }),
  improperClientCertChain: Type.Boolean(),
  lastActivityAt: DateTime,
  cachedLastActivityAt: DateTime,
  cachedUpdatedAt: DateTime,
  expiresAt: DateTime,
  expirationSeconds: Type.Integer(),
});
