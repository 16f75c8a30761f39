/**
 * Signing in at an external identity provider from the login page (issue 45, decision 0084). The page's button is a
 * link to `GET /oidc/login/ext-idp?authRequestID=&signer=`, which redirects the browser to the signer's IdP
 * (authorization code with PKCE) and sets the flow's cookie; the IdP sends it back to the one fixed callback
 * `GET /oidc/ext-idp/callback` (what the operator registers at the IdP), where the code becomes the signer's token and
 * the token the ordinary primary `ext-jwt` login of the auth request. Every refusal is the login page (or, without a
 * sign-in to go back to, a page) with one sentence and a 4xx; nothing is created.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../../errors/api-error.js';
import { isOAuthError } from '../../errors/oauth-error.js';
import { ExternalIdpRefusal, flowCookieName, type ExternalIdpProblem } from '../../services/external-jwt/external-idp.js';
import type { OidcContext, OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';
import { continuePage, pageStrings, problemPage, sendPage, wantsHtml, type PageProblem } from '../pages/render.js';
import type { PageStrings } from '../pages/strings.js';
import { answerLogin, showLoginPage } from './login.js';

/** The callback path under the issuer, as the operator registers it at the IdP: `https://<address>/oidc/ext-idp/callback`. */
export const EXTERNAL_IDP_CALLBACK_PATH = '/ext-idp/callback';
const COOKIE_PATH = '/oidc/ext-idp/';

const STATUS: Record<ExternalIdpProblem, number> = { 'not-offered': 400, state: 400, 'idp-refused': 401, 'idp-unavailable': 401, token: 401 };

function sentence(s: PageStrings, refusal: ExternalIdpRefusal, idpError?: string): string {
  switch (refusal.problem) {
    case 'not-offered':
      return s.idpNotOffered;
    case 'idp-unavailable':
      return s.idpUnavailable;
    case 'idp-refused':
      return s.idpRefused(idpError ?? 'the code was not accepted');
    case 'state':
      return s.idpState;
    case 'token':
      return s.idpToken;
  }
}

/** The request's cookies (RFC 6265 §5.4), name -> value; the first of a repeated name counts. */
function cookiesOf(request: FastifyRequest): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of String(request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (!(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}

/** The refusal as a page: the sign-in of its auth request again when there is one, else the sentence alone. */
function refuse(context: OidcContext, request: FastifyRequest, reply: FastifyReply, status: number, problem: PageProblem, authRequestId: string | undefined) {
  if (authRequestId) return showLoginPage(context, request, reply, authRequestId, status, problem);
  return sendPage(reply, status, problemPage(pageStrings(request), problem));
}

async function start(context: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  const s = pageStrings(request);
  let pending;
  try {
    pending = await context.provider.pendingAuthRequest(query.authRequestID ?? query.id);
  } catch (error) {
    if (!isOAuthError(error)) throw error;
    return refuse(context, request, reply, 400, { message: s.expired }, undefined);
  }
  try {
    const started = await context.externalIdp.start(pending.handle, pending.expiresAt, query.signer, `${context.where.issuer}${EXTERNAL_IDP_CALLBACK_PATH}`);
    const { name, value, maxAgeSeconds } = started.cookie;
    // Lax: the IdP's redirect back is a top-level GET, which carries it; nothing else of another site does.
    reply.header('set-cookie', `${name}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`);
    return reply.header('cache-control', 'no-store').redirect(started.location, 302);
  } catch (error) {
    if (!(error instanceof ExternalIdpRefusal)) throw error;
    request.log.info({ reason: error.message }, 'sign-in at an external identity provider not started');
    return refuse(context, request, reply, STATUS[error.problem], { message: sentence(s, error) }, pending.handle);
  }
}

async function callback(context: OidcContext, request: FastifyRequest, reply: FastifyReply) {
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  const cookies = cookiesOf(request);
  const s = pageStrings(request);
  // The flow's cookie is spent whatever the outcome.
  const spent = flowCookieName(query.state);
  if (spent) reply.header('set-cookie', `${spent}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; Secure; SameSite=Lax`);
  let finished;
  try {
    finished = await context.externalIdp.finish({
      state: query.state,
      code: query.code,
      error: query.error,
      errorDescription: query.error_description,
      cookies,
      redirectUri: `${context.where.issuer}${EXTERNAL_IDP_CALLBACK_PATH}`,
    });
  } catch (error) {
    if (!(error instanceof ExternalIdpRefusal)) throw error;
    request.log.info({ reason: error.message }, 'sign-in at an external identity provider refused');
    // The IdP's own words are shown as text (escaped by the page), never as markup, and bounded.
    const idpError = query.error === undefined ? undefined : [query.error, query.error_description].filter(Boolean).join(': ').slice(0, 300);
    return refuse(context, request, reply, STATUS[error.problem], { message: sentence(s, error, idpError) }, error.authRequestId);
  }
  try {
    const outcome = await context.factors.login(finished.authRequestId, { method: 'ext-jwt', bearerTokens: [finished.token], ipAddress: request.ip });
    // A browser continues from a page of ours: this answer ends the redirect chain that began with the IdP's login
    // form, whose CSP form-action would otherwise be applied to the hop to the client's redirect URI.
    if (outcome.kind === 'authenticated' && wantsHtml(request)) {
      const next = new URL(outcome.location);
      return sendPage(reply, 200, continuePage(s, `${next.pathname}${next.search}`));
    }
    return answerLogin(reply, outcome, request);
  } catch (error) {
    // The login's refusals (no such identity, disabled, not allowed by its policy) read alike: nothing tells which.
    if (isOAuthError(error)) return refuse(context, request, reply, 400, { message: s.expired }, undefined);
    if (isApiError(error) && error.status < 500) return refuse(context, request, reply, 401, { message: s.idpIdentity }, finished.authRequestId);
    throw error;
  }
}

export const externalIdpEndpoints: OidcEndpoint[] = [
  { method: 'GET', url: '/oidc/login/ext-idp', handler: start },
  { method: 'GET', url: `/oidc${EXTERNAL_IDP_CALLBACK_PATH}`, handler: callback },
];
