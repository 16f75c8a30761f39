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
import { loginPage, pageStrings, sendPage, totpPage, wantsHtml, type PageProblem } from '../pages/render.js';

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
    return sendPage(reply.header('totp-required', 'true'), 200, totpPage(pageStrings(request), outcome.request.handle), outcome.request.redirectUri);
  }
  return sendAuthQueries(reply, outcome.request);
}

/**
 * The sign-in page of a pending request: the password form, the certificate button when one was presented, and a
 * button per external IdP offered.
 */
export async function showLoginPage(context: OidcContext, request: FastifyRequest, reply: FastifyReply, handle: string, status = 200, problem?: PageProblem) {
  const pending = await context.provider.pendingAuthRequest(handle).catch(() => undefined);
  // The external IdPs the policy allows, each a link that starts its sign-in (decision 0084).
  const providers = (await context.externalIdp.offered()).map((offered) => ({
    name: offered.name,
    url: `/oidc/login/ext-idp?${new URLSearchParams({ authRequestID: handle, signer: offered.id })}`,
  }));
  const options = { certificate: presentedClientCertificate(request) !== undefined, providers };
  return sendPage(reply.header('auth-request-id', handle), status, loginPage(pageStrings(request), handle, options, problem), pending?.redirectUri);
}

async function showLogin(context: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  const pending = await context.provider.pendingAuthRequest(query.authRequestID ?? query.id);
  const partial = pending.status === 'partially_authenticated';
  if (wantsHtml(request) && !partial && !request.url.startsWith('/oidc/login/cert') && !request.url.startsWith('/oidc/login/ext-jwt')) {
    return showLoginPage(context, request, reply, pending.handle);
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

async function passwordLogin(context: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  const { id } = body;
  try {
    return answerLogin(reply, await context.factors.login(id, { method: 'password', username: body.username, password: body.password, ...loginContext(body, request) }), request);
  } catch (error) {
    // A browser posting the form gets the form back; API clients get the JSON error. Every refusal of the
    // credentials (unknown user, wrong password, locked, disabled) reads the same and has the same status, so the
    // page never tells whether an account exists or is locked.
    const status = (error as { status?: number }).status ?? 500;
    if (wantsHtml(request) && id && status >= 400 && status < 500) {
      const s = pageStrings(request);
      const unknownRequest = status === 404 || status === 410;
      return showLoginPage(context, request, reply, id, unknownRequest ? 400 : 401, { message: unknownRequest ? s.expired : s.refused, field: 'username' });
    }
    throw error;
  }
}

async function certLogin({ factors }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  const clientCertificate = presentedClientCertificate(request);
  return answerLogin(reply, await factors.login(body.id, { method: 'cert', ...(clientCertificate ? { clientCertificate } : {}), ...loginContext(body, request) }), request);
}

/** `Authorization: Bearer <external JWT>` (more than one value may also carry a secondary JWT). */
async function extJwtLogin({ factors }: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const body = readLoginBody(request);
  return answerLogin(reply, await factors.login(body.id, { method: 'ext-jwt', ...loginContext(body, request) }), request);
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
