/**
 * The login endpoints of an authorization request (spec: OIDC provider endpoints, OIDC authorization request
 * states). GET shows a plain HTML form (Accept: text/html) or the request id as JSON; POST checks a primary
 * credential through the authentication service (same checks and lockout as the legacy flow) and, with nothing
 * left to answer, redirects to the client with the code; with a secondary factor outstanding, answers 200 with the
 * auth queries (the request is then partially authenticated). Refused credentials leave the request as it was.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { presentedClientCertificate, presentedCredentials } from '../../http/kit/credentials.js';
import type { AuthenticationRequest } from '../../services/authentication/authentication.js';
import type { LoginOutcome } from '../../services/oidc-provider/oidc-provider.js';
import { sendAuthQueries } from '../auth-queries.js';
import type { OidcContext, OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';
import { readLoginBody, type LoginBody } from '../login-body.js';
import { loginForm, totpForm, wantsHtml } from '../pages.js';

/** The auth request id: `authRequestId` (or `id`) in the body, else `authRequestID` (or `id`) in the query. */
export function authRequestIdOf(request: FastifyRequest) {
  const body = readParams(request.body, MAX_TOKEN_PARAM);
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  return { body, id: body.authRequestId ?? body.id ?? query.authRequestID ?? query.id };
}

/**
 * Spec: OIDC authorization request states; a code goes to the client, outstanding factors to the user: as auth
 * queries, or for a browser with TOTP outstanding, the TOTP form.
 */
export function answerLogin(reply: FastifyReply, outcome: LoginOutcome, request?: FastifyRequest) {
  if (outcome.kind === 'authenticated') return reply.redirect(outcome.location, 302);
  if (request && wantsHtml(request) && outcome.outstanding.some((factor) => factor.kind === 'totp')) {
    return reply.code(200).header('totp-required', 'true').header('cache-control', 'no-store').type('text/html; charset=utf-8').send(totpForm(outcome.request.handle));
  }
  return sendAuthQueries(reply, outcome.request);
}

async function showLogin({ provider }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  const pending = await provider.pendingAuthRequest(query.authRequestID ?? query.id);
  const partial = pending.status === 'partially_authenticated';
  if (wantsHtml(request) && !partial && !request.url.startsWith('/oidc/login/cert') && !request.url.startsWith('/oidc/login/ext-jwt')) {
    return reply.header('auth-request-id', pending.handle).type('text/html; charset=utf-8').send(loginForm(pending.handle));
  }
  if (partial) return answerLogin(reply, { kind: 'partially_authenticated', request: pending, outstanding: pending.outstanding }, request);
  return sendAuthQueries(reply, pending);
}

/**
 * What every login POST hands the authentication service besides its credential: the client's `sdkInfo`/`envInfo`
 * (recorded on the identity) and `configTypes` (carried to the session), the Bearer values and the address.
 */
function loginContext(body: LoginBody, request: FastifyRequest) {
  return {
    bearerTokens: presentedCredentials(request).bearerTokens,
    ipAddress: request.ip,
    ...(body.sdkInfo ? { sdkInfo: body.sdkInfo } : {}),
    ...(body.envInfo ? { envInfo: body.envInfo } : {}),
    ...(body.configTypes ? { configTypes: body.configTypes } : {}),
  } satisfies Partial<AuthenticationRequest>;
}

async function passwordLogin({ factors }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  const { id } = body;
  try {
    return answerLogin(reply, await factors.login(id, { method: 'password', username: body.username, password: body.password, ...loginContext(body, request) }), request);
  } catch (error) {
    // A browser posting the form gets the form back with the reason; API clients get the JSON error.
    if (wantsHtml(request) && id && (error as { status?: number }).status === 401) {
      return reply.code(401).type('text/html; charset=utf-8').send(loginForm(id, 'The username or password is not correct.'));
    }
    throw error;
  }
}

async function certLogin({ factors }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  const clientCertificate = presentedClientCertificate(request);
  return answerLogin(reply, await factors.login(body.id, { method: 'cert', ...(clientCertificate ? { clientCertificate } : {}), ...loginContext(body, request) }));
}

/** `Authorization: Bearer <external JWT>` (more than one value may also carry a secondary JWT). */
async function extJwtLogin({ factors }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  return answerLogin(reply, await factors.login(body.id, { method: 'ext-jwt', ...loginContext(body, request) }));
}

export const loginEndpoints: OidcEndpoint[] = [
  { method: 'GET', url: '/oidc/login/username', handler: showLogin },
  { method: 'GET', url: '/oidc/login/password', handler: showLogin },
  { method: 'GET', url: '/oidc/login/cert', handler: showLogin },
  { method: 'GET', url: '/oidc/login/ext-jwt', handler: showLogin },
  { method: 'POST', url: '/oidc/login/username', handler: passwordLogin },
  { method: 'POST', url: '/oidc/login/password', handler: passwordLogin },
  { method: 'POST', url: '/oidc/login/cert', handler: certLogin },
  { method: 'POST', url: '/oidc/login/ext-jwt', handler: extJwtLogin },
];

/** `GET /oidc/login/auth-queries?id=`: what the request still has to answer (empty before its primary login). */
export const authQueries: OidcEndpoint = {
  method: 'GET',
  url: '/oidc/login/auth-queries',
  async handler({ provider }, request, reply) {
    const query = readParams(request.query, MAX_TOKEN_PARAM);
    return sendAuthQueries(reply, await provider.pendingAuthRequest(query.id ?? query.authRequestID));
  },
};
