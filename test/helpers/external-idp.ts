/**
 * A real OIDC provider on loopback for the login page's external IdP sign-in (decision 0084): a second controller,
 * whose `/oidc` issuer serves discovery, the authorization endpoint with PKCE, its login and the token endpoint, with
 * the first controller's callback registered as a redirect URI. Builders return values; they never assert.
 */
import type { Clock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from './controller.js';
import { REDIRECT_URI } from './oidc.js';

export interface IdpPair {
  /** The controller people sign in to (its login page offers the IdP). */
  ctl: TestController;
  /** The second controller, acting as the external IdP. */
  idp: TestController;
  /** The callback the operator registers at the IdP. */
  callbackUrl: string;
}

export async function startIdpPair(options: { clock?: Clock } = {}): Promise<IdpPair> {
  const ctl = await startTestController(options.clock ? { clock: options.clock } : {});
  const callbackUrl = `${ctl.baseUrl}/oidc/ext-idp/callback`;
  const idp = await startTestController({
    modify: (config) => config.web[0].apis.push({ binding: 'edge-oidc', options: { redirectURIs: [callbackUrl, REDIRECT_URI] } }),
  });
  return { ctl, idp, callbackUrl };
}

/** A signer of `ctl` for the IdP's ID tokens (`sub` matched to an identity's externalId), offered on the login page. */
export function idpSignerBody(idp: TestController, name: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    enabled: true,
    issuer: `${idp.baseUrl}/oidc`,
    audience: 'svc',
    jwksEndpoint: `${idp.baseUrl}/oidc/keys`,
    externalAuthUrl: `${idp.baseUrl}/oidc`,
    clientId: 'svc',
    scopes: ['email'],
    targetToken: 'ID',
    claimsProperty: 'sub',
    useExternalId: true,
    ...fields,
  };
}

/** `name=value` of each Set-Cookie, for a Cookie header. */
export function cookieHeader(setCookies: string[]): string {
  return setCookies.map((line) => line.split(';')[0]).join('; ');
}

/**
 * Signs in at the IdP as a browser would: its authorization endpoint (`authorizeUrl`, from the controller's redirect),
 * its password login, its callback; returns where the IdP sends the browser back (the controller's callback with
 * `code` and `state`), or throws naming the step that did not redirect.
 */
export async function signInAtIdp(idp: TestController, authorizeUrl: string, username: string, password: string): Promise<URL> {
  const authorize = await idp.fetch(authorizeUrl);
  const login = new URL(String(authorize.headers.location ?? ''), idp.baseUrl);
  const authRequestId = login.searchParams.get('authRequestID');
  if (!authRequestId) throw new Error(`IdP authorization: ${authorize.status} ${authorize.text}`);
  const posted = await idp.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId, username, password } });
  if (posted.status !== 302) throw new Error(`IdP login: ${posted.status} ${posted.text}`);
  const callback = await idp.fetch(String(posted.headers.location));
  if (callback.status !== 302) throw new Error(`IdP callback: ${callback.status} ${callback.text}`);
  return new URL(String(callback.headers.location));
}
