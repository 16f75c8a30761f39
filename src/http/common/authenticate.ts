/**
 * `POST /authenticate?method=…` (legacy flow, both Edge APIs): primary credentials in, an API session out,
 * its token in `data.token` and in the `svc-session` response header (spec: Legacy authentication).
 */
import { Type } from 'typebox';
import { ApiErrorBody, EmptyEnvelope, Envelope } from '../schemas/common.js';
import { CurrentApiSessionDetail } from '../schemas/api-session.js';
import { clientInfoFields } from '../schemas/client-info.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { presentedClientCertificate, presentedCredentials } from '../kit/credentials.js';
import { currentApiSessionView } from './current-api-session.js';
import { totpRequired } from '../../domain/auth-query.js';
import { MfaCodeBody } from '../schemas/mfa.js';

const AuthenticateQuery = Type.Object({
  method: Type.Union([Type.Literal('password'), Type.Literal('cert'), Type.Literal('ext-jwt')], { description: 'password, cert or ext-jwt' }),
});

const AuthenticateBody = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 4, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    // The same rules as the OIDC login bodies (schemas/client-info.ts).
    ...clientInfoFields,
  },
  { additionalProperties: false },
);

export const authenticateRoute = defineRoute({
  method: 'POST',
  url: '/authenticate',
  operationId: 'authenticate',
  summary: 'Authenticates with primary credentials and returns a legacy API session (deprecated: prefer OIDC)',
  tags: ['Authentication'],
  access: 'none',
  uses: ['authentication', 'clock', 'certificates'],
  schema: {
    querystring: AuthenticateQuery,
    body: AuthenticateBody,
    response: { 200: Envelope(CurrentApiSessionDetail), 400: ApiErrorBody, 401: ApiErrorBody },
  },
  handler: async ({ domains, api, query, body, request, reply }) => {
    const result = await domains.authentication.authenticate({
      method: query.method,
      username: body.username,
      password: body.password,
      clientCertificate: presentedClientCertificate(request),
      bearerTokens: presentedCredentials(request).bearerTokens,
      ipAddress: request.ip,
      ...(body.sdkInfo ? { sdkInfo: body.sdkInfo } : {}),
      ...(body.envInfo ? { envInfo: body.envInfo } : {}),
      ...(body.configTypes ? { configTypes: body.configTypes } : {}),
    });
    const now = domains.clock.now();
    const certFlags = await domains.certificates.extension.flagsOf(result.session);
    const view = currentApiSessionView(result, now, api.prefix, certFlags);
    reply.header('svc-session', result.token);
    // The reference's header telling a certificate login that an administrator asked for an extension.
    if (certFlags.isCertExtendRequested || certFlags.isCertKeyRollRequested) reply.header('svc-authenticator-extend-requested', 'true');
    if (totpRequired(result.session.outstanding)) reply.header('totp-required', 'true');
    reply.header('expiration-seconds', String(view.expirationSeconds));
    reply.header('expires-at', view.expiresAt);
    return envelope(view);
  },
});

/** `POST /authenticate/mfa`: a session answers its TOTP auth query (spec: Legacy API session states). */
export const authenticateMfaRoute = defineRoute({
  method: 'POST',
  url: '/authenticate/mfa',
  operationId: 'authenticateMfa',
  summary: 'Answers the TOTP auth query of the session with a TOTP or recovery code; the same token continues fully authenticated',
  tags: ['Authentication', 'MFA'],
  access: 'partial',
  uses: ['sessionMfa'],
  schema: { body: MfaCodeBody, response: { 200: EmptyEnvelope, 400: ApiErrorBody, 401: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody } },
  handler: async ({ domains, auth, body }) => {
    await domains.sessionMfa.answer(auth!, body.code);
    return envelope({});
  },
});
