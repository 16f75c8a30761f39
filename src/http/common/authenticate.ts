/**
 * `POST /authenticate?method=…` (legacy flow, both Edge APIs): primary credentials in, an API session out,
 * its token in `data.token` and in the `svc-session` response header (spec: Legacy authentication).
 */
import { Type } from 'typebox';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { presentedClientCertificate } from '../kit/credentials.js';
import { CurrentApiSession, currentApiSessionView } from './current-api-session.js';

const AuthenticateQuery = Type.Object({
  method: Type.Union([Type.Literal('password'), Type.Literal('cert'), Type.Literal('ext-jwt')], { description: 'password, cert or ext-jwt' }),
});

const AuthenticateBody = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 4, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    configTypes: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    envInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
    sdkInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const ApiSessionWithToken = Type.Intersect([CurrentApiSession, Type.Object({ token: Type.String() })]);

export const authenticateRoute = defineRoute({
  method: 'POST',
  url: '/authenticate',
  operationId: 'authenticate',
  summary: 'Authenticates with primary credentials and returns a legacy API session (deprecated: prefer OIDC)',
  tags: ['Authentication'],
  access: 'none',
  schema: {
    querystring: AuthenticateQuery,
    body: AuthenticateBody,
    response: { 200: Envelope(ApiSessionWithToken), 400: ApiErrorBody, 401: ApiErrorBody },
  },
  handler: async ({ api, query, body, request, reply }) => {
    const result = await api.services.authentication.authenticate({
      method: query.method,
      username: body.username,
      password: body.password,
      clientCertificate: presentedClientCertificate(request),
      ipAddress: request.ip,
    });
    const now = api.services.clock.now();
    const view = currentApiSessionView({ kind: 'legacy', partial: false, ...result }, now);
    reply.header('svc-session', result.token);
    reply.header('expiration-seconds', String(view.expirationSeconds));
    reply.header('expires-at', view.expiresAt);
    return envelope({ ...view, token: result.token });
  },
});
