/**
 * Signing in at an external identity provider from the login page (issue 45, decision 0084): which signers to offer,
 * the authorization-code flow with PKCE at the signer's IdP (discovered from its `externalAuthUrl`), and the
 * callback that exchanges the code (a public client: no secret) and hands back the token the signer verifies.
 * The login itself is then the ordinary primary `ext-jwt` login of the auth request. Knows nothing of HTTP.
 *
 * The flow is not stored at the controller: the `state` sent to the IdP is 256 random bits, and the flow (the auth
 * request's id, the signer, the PKCE verifier, the state again and the auth request's expiry) is sealed (AES-GCM, its
 * own context) into a cookie of the browser that started, named after the state. At the callback the state must find
 * its cookie and equal the state sealed in it (compared in constant time), so a callback URL carried to another
 * browser signs nobody in, and an IdP that alters the state is refused. A state is used once across every
 * controller sharing the store: its SHA-256 is recorded there, until the auth request expires, by one insert whose key
 * conflict means "used before". The state doubles as the ID token's nonce.
 */
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { decodeJwt } from 'jose';
import type { SecretBox } from '../../crypto/secret-box.js';
import { hashToken, secretsEqual } from '../../crypto/secrets.js';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from '../../domain/auth-policy.js';
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import type { UsedIdpStateRepository } from '../../persistence/repositories/used-idp-states.js';
import type { Clock } from '../../shared/clock.js';
import { newSecretToken } from '../../shared/random.js';
import type { ExternalJwtVerifier } from './external-jwt.js';
import type { GuardedFetch } from './guarded-fetch.js';

/** Why a sign-in at an IdP did not lead to a login; each has its own sentence on the page. */
export type ExternalIdpProblem = 'not-offered' | 'idp-refused' | 'idp-unavailable' | 'state' | 'token';

export class ExternalIdpRefusal extends Error {
  constructor(
    readonly problem: ExternalIdpProblem,
    message: string,
    /** The auth request the state named, when it could be read: the page offers its sign-in again. */
    readonly authRequestId?: string,
  ) {
    super(message);
    this.name = 'ExternalIdpRefusal';
  }
}

/** A signer offered on the login page. */
export interface OfferedProvider {
  id: string;
  name: string;
}

export interface ExternalIdpStart {
  /** Where to send the browser: the IdP's authorization endpoint with the request. */
  location: string;
  /** The cookie the browser that started must carry back to the callback, and for how long (the auth request's life). */
  cookie: { name: string; value: string; maxAgeSeconds: number };
  expiresAt: Date;
}

export interface ExternalIdpCallback {
  state: string | undefined;
  code: string | undefined;
  error: string | undefined;
  errorDescription: string | undefined;
  /** The cookies the browser sent with the callback (name -> value). */
  cookies: Readonly<Record<string, string>>;
  /** The same callback URL the flow started with (RFC 6749 §4.1.3). */
  redirectUri: string;
}

export interface ExternalIdpLogins {
  /**
   * The signers to offer: enabled, with `externalAuthUrl` and `clientId`, and allowed by the auth policy that applies
   * before anyone is known (the default policy: ext-jwt allowed and, when it lists signers, listed). The identity's
   * own policy is applied again at the login, as for every ext-jwt login.
   */
  offered(): Promise<OfferedProvider[]>;
  /** Starts the flow for auth request `authRequestId` (expiring at `expiresAt`) with an offered signer. */
  start(authRequestId: string, expiresAt: Date, signerId: string | undefined, redirectUri: string): Promise<ExternalIdpStart>;
  /** The callback: the auth request and the token to log it in with (the one the signer verifies), or a refusal. */
  finish(callback: ExternalIdpCallback): Promise<{ authRequestId: string; signerId: string; token: string }>;
}

/** The sealed flow: auth request handle, signer, PKCE verifier, state, expiry (ms). */
interface FlowFields {
  h: string;
  s: string;
  v: string;
  n: string;
  e: number;
}

const FLOW_CONTEXT = 'oidc-ext-idp-flow v1';
const STATE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The cookie that carries the flow of `state` (undefined for a value that is no state of ours): one per flow, so
 * sign-ins in two tabs do not disturb each other.
 */
export const flowCookieName = (state: string | undefined) => (state !== undefined && STATE.test(state) ? `svc-ext-idp-${state.slice(0, 16)}` : undefined);
/** A discovery document is used this long before it is fetched again (an IdP moving its endpoints is rare). */
const DISCOVERY_TTL_MS = 5 * 60_000;
const MAX_PARAM = 16_384;

interface Endpoints {
  authorization: string;
  token: string;
}

export function createExternalIdpLogins(deps: {
  signers: { findById(id: string): Promise<ExternalJwtSigner | undefined>; listEnabled(): Promise<ExternalJwtSigner[]> };
  policies: { findById(id: string): Promise<AuthPolicy | undefined> };
  verifier: Pick<ExternalJwtVerifier, 'check'>;
  fetch: GuardedFetch;
  secrets: SecretBox;
  clock: Clock;
  /** Accept http:// IdP endpoints (edge.externalJwt.allowHttpJwks). */
  allowHttp: boolean;
  /** The used states, in the store (shared by the controllers). */
  usedStates: Pick<UsedIdpStateRepository, 'use'>;
}): ExternalIdpLogins {
  const { clock } = deps;
  const discovered = new Map<string, { endpoints: Endpoints; fetchedAt: number }>();

  function allowedBy(policy: AuthPolicy | undefined, signer: ExternalJwtSigner): boolean {
    const extJwt = policy?.primary.extJwt;
    if (!extJwt?.allowed) return false;
    return extJwt.allowedSigners.length === 0 || extJwt.allowedSigners.includes(signer.id);
  }

  const browsable = (signer: ExternalJwtSigner) => signer.enabled && !!signer.externalAuthUrl && !!signer.clientId;

  async function offeredSigners(): Promise<ExternalJwtSigner[]> {
    const policy = await deps.policies.findById(DEFAULT_AUTH_POLICY_ID);
    return (await deps.signers.listEnabled()).filter((signer) => browsable(signer) && allowedBy(policy, signer)).sort((a, b) => a.name.localeCompare(b.name));
  }

  const endpointUrl = (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || (deps.allowHttp && url.protocol === 'http:') ? url.href : undefined;
    } catch {
      return undefined;
    }
  };

  /** The IdP's authorization and token endpoints (OpenID Connect Discovery 1.0 §4), cached briefly. */
  async function endpointsOf(signer: ExternalJwtSigner): Promise<Endpoints> {
    const base = (signer.externalAuthUrl as string).replace(/\/+$/, '');
    const cached = discovered.get(base);
    if (cached && clock.now().getTime() - cached.fetchedAt < DISCOVERY_TTL_MS) return cached.endpoints;
    const url = `${base}/.well-known/openid-configuration`;
    const unavailable = (why: string) => new ExternalIdpRefusal('idp-unavailable', `the identity provider of signer ${signer.name} is unavailable: ${why}`);
    let document: Record<string, unknown>;
    try {
      const answer = await deps.fetch(url, { headers: { accept: 'application/json' } });
      if (answer.status !== 200) throw unavailable(`${url} answered HTTP ${answer.status}`);
      document = JSON.parse(answer.body) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ExternalIdpRefusal) throw error;
      throw unavailable(error instanceof Error ? error.message : String(error));
    }
    const authorization = endpointUrl(document?.authorization_endpoint);
    const token = endpointUrl(document?.token_endpoint);
    if (!authorization || !token) throw unavailable(`${url} names no usable authorization_endpoint and token_endpoint (https URLs)`);
    const endpoints = { authorization, token };
    discovered.set(base, { endpoints, fetchedAt: clock.now().getTime() });
    return endpoints;
  }

  /** The flow `state` belongs to, from its cookie; the state must equal the one sealed there (constant time). */
  function openFlow(state: string | undefined, cookies: Readonly<Record<string, string>>): FlowFields {
    const unknown = () => new ExternalIdpRefusal('state', 'the sign-in at the identity provider is unknown to this browser; start again from the application');
    const name = flowCookieName(state);
    const sealed = name === undefined ? undefined : cookies[name];
    if (!sealed || sealed.length > MAX_PARAM) throw unknown();
    let fields: FlowFields | undefined;
    try {
      const opened = JSON.parse(deps.secrets.open(sealed, FLOW_CONTEXT)) as FlowFields;
      if ([opened.h, opened.s, opened.v, opened.n].every((f) => typeof f === 'string') && typeof opened.e === 'number') fields = opened;
    } catch {
      // altered, sealed by another key or for another purpose: unknown, like a state never issued
    }
    if (!fields || !secretsEqual(fields.n, state as string)) throw unknown();
    return fields;
  }

  /** Marks the state used at every controller; false when it was used before. A store error throws (never "unused"). */
  const useOnce = (state: string, expiresAt: number): Promise<boolean> => deps.usedStates.use(hashToken(state), new Date(expiresAt));

  async function exchange(signer: ExternalJwtSigner, fields: FlowFields, code: string, redirectUri: string): Promise<Record<string, unknown>> {
    const { token: tokenEndpoint } = await endpointsOf(signer);
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: signer.clientId as string, code_verifier: fields.v });
    let answer;
    try {
      answer = await deps.fetch(tokenEndpoint, { method: 'POST', form, headers: { accept: 'application/json' } });
    } catch (error) {
      throw new ExternalIdpRefusal('idp-unavailable', `the token endpoint of signer ${signer.name} failed: ${error instanceof Error ? error.message : String(error)}`, fields.h);
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(answer.body) as Record<string, unknown>;
    } catch {
      // judged by the status below
    }
    if (answer.status !== 200) {
      throw new ExternalIdpRefusal('idp-refused', `the identity provider refused the code (HTTP ${answer.status}${typeof body.error === 'string' ? `, ${body.error}` : ''})`, fields.h);
    }
    return body;
  }

  return {
    async offered() {
      return (await offeredSigners()).map((signer) => ({ id: signer.id, name: signer.name }));
    },

    async start(authRequestId, expiresAt, signerId, redirectUri) {
      const signer = (await offeredSigners()).find((one) => one.id === signerId);
      if (!signer) throw new ExternalIdpRefusal('not-offered', `signer '${signerId ?? ''}' is not offered for signing in here`, authRequestId);
      const { authorization } = await endpointsOf(signer).catch((error: unknown) => {
        throw error instanceof ExternalIdpRefusal ? new ExternalIdpRefusal(error.problem, error.message, authRequestId) : error;
      });
      const fields: FlowFields = { h: authRequestId, s: signer.id, v: newSecretToken(32), n: newSecretToken(32), e: expiresAt.getTime() };
      const target = new URL(authorization);
      const query = new URLSearchParams(target.search);
      query.set('response_type', 'code');
      query.set('client_id', signer.clientId as string);
      query.set('redirect_uri', redirectUri);
      query.set('scope', ['openid', ...signer.scopes.filter((scope) => scope !== 'openid')].join(' '));
      query.set('state', fields.n);
      query.set('nonce', fields.n);
      query.set('code_challenge', createHash('sha256').update(fields.v).digest('base64url'));
      query.set('code_challenge_method', 'S256');
      target.search = query.toString();
      const cookie = {
        name: flowCookieName(fields.n) as string,
        value: deps.secrets.seal(JSON.stringify(fields), FLOW_CONTEXT),
        maxAgeSeconds: Math.max(1, Math.ceil((expiresAt.getTime() - clock.now().getTime()) / 1000)),
      };
      return { location: target.href, cookie, expiresAt };
    },

    async finish(callback) {
      const fields = openFlow(callback.state, callback.cookies);
      const stale = (what: string) => new ExternalIdpRefusal('state', `the sign-in at the identity provider ${what}; start again from the application`, fields.h);
      if (fields.e <= clock.now().getTime()) throw stale('has expired');
      if (!(await useOnce(fields.n, fields.e))) throw stale('was already used');
      if (callback.error !== undefined) {
        const description = callback.errorDescription ? `: ${callback.errorDescription.slice(0, 300)}` : '';
        throw new ExternalIdpRefusal('idp-refused', `the identity provider refused the sign-in (${callback.error.slice(0, 100)}${description})`, fields.h);
      }
      if (!callback.code || callback.code.length > MAX_PARAM) throw new ExternalIdpRefusal('idp-refused', 'the identity provider sent no code', fields.h);
      const signer = await deps.signers.findById(fields.s);
      if (!signer || !browsable(signer)) throw new ExternalIdpRefusal('token', 'the signer of this sign-in is no longer enabled', fields.h);
      const body = await exchange(signer, fields, callback.code, callback.redirectUri);
      const field = signer.targetToken === 'ID' ? 'id_token' : 'access_token';
      const token = body[field];
      if (typeof token !== 'string' || token.length === 0) throw new ExternalIdpRefusal('token', `the identity provider answered no ${field}`, fields.h);
      const result = await deps.verifier.check(signer.id, token);
      if (!result.ok && result.failure.check !== 'no-identity' && result.failure.check !== 'identity-disabled') {
        throw new ExternalIdpRefusal('token', `the ${field} does not verify for signer ${signer.name}: ${result.failure.message}`, fields.h);
      }
      // An ID token must answer this request's nonce (OpenID Connect Core 1.0 §3.1.3.7), so no other sign-in's fits.
      if (signer.targetToken === 'ID' && nonceOf(token) !== fields.n) throw new ExternalIdpRefusal('token', 'the id_token does not carry the nonce of this sign-in', fields.h);
      // Whether the token names an identity that may log in is for the login to say, in its own uniform words.
      return { authRequestId: fields.h, signerId: signer.id, token };
    },
  };
}

function nonceOf(token: string): unknown {
  try {
    return (decodeJwt(token) as JWTPayload).nonce;
  } catch {
    return undefined;
  }
}
