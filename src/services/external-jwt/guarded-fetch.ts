/**
 * One HTTP exchange with an external identity provider on terms an administrator's URL cannot abuse (the JWKS of a
 * signer, an IdP's discovery document and token endpoint all go through here):
 *
 * - https only (http when `allowHttpJwks`), no credentials in the URL;
 * - the host is resolved here and every address checked (policy/fetch-address.ts) before connecting, and the
 *   connection goes to the checked address, so a DNS answer that changes between check and connect (rebinding)
 *   gains nothing; TLS still verifies the certificate against the host name;
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked like the first;
 * - one time budget for the whole exchange (`jwksTimeout`, redirects included) and a body limit (`jwksMaxBytes`);
 * - TLS trusts the system roots plus the controller's own CA bundle.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { ExternalJwtConfig } from '../../config/types.js';
import { addressRefusal } from '../../policy/fetch-address.js';

/** Why an exchange failed; each is a distinct, loggable reason. */
export type JwksFetchFailure =
  | 'refused-url'
  | 'refused-address'
  | 'dns'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects'
  | 'http-status'
  | 'invalid-jwks'
  | 'tls'
  | 'network';

export class JwksFetchError extends Error {
  constructor(
    readonly reason: JwksFetchFailure,
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'JwksFetchError';
  }
}

export interface GuardedFetchOptions {
  config: ExternalJwtConfig;
  /** CA certificates trusted besides the system roots (the controller's own bundle). */
  caPems: readonly string[];
  /** Every address of a host name (default: the system resolver); tests inject answers. */
  resolve?(host: string): Promise<string[]>;
}

export interface GuardedRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A form body (POST); a request with a body follows no redirect. */
  form?: URLSearchParams;
}

/** What the server answered: any status but a redirect (those are followed or refused), and the whole body. */
export interface GuardedAnswer {
  url: string;
  status: number;
  body: string;
}

export type GuardedFetch = (url: string, request?: GuardedRequest) => Promise<GuardedAnswer>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TLS_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/;

const systemResolve = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * @example
 * const fetch = createGuardedFetch({ config: DEFAULT_EXTERNAL_JWT, caPems });
 * const { status, body } = await fetch('https://idp.example.com/.well-known/openid-configuration');
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const { config } = options;
  const resolve = options.resolve ?? systemResolve;
  const ca = [...rootCertificates, ...options.caPems];

  /** One exchange with `url` (no redirects followed): the body, or where it redirects to. */
  function exchange(url: URL, address: string, request: GuardedRequest, signal: AbortSignal): Promise<{ location: string } | { status: number; body: string }> {
    const family = isIP(address);
    // The connection goes to the checked address whatever the resolver would say now (see the module comment).
    const pinned: LookupFunction = (_host, lookupOptions, callback) =>
      lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = request.form?.toString();
    return new Promise((resolvePromise, reject) => {
      const fail = (reason: JwksFetchFailure, message: string) => {
        signal.removeEventListener('abort', onAbort);
        req.destroy();
        reject(new JwksFetchError(reason, url.href, message));
      };
      const onAbort = () => fail('timeout', `no complete answer from ${url.href} within ${config.jwksTimeoutMs}ms (edge.externalJwt.jwksTimeout)`);
      const req = send(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: request.method ?? 'GET',
          headers: { ...request.headers, ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(payload)) }) },
          lookup: pinned,
          agent: false,
          ...(url.protocol === 'https:' ? { ca } : {}),
        },
        (res: IncomingMessage) => {
          const status = res.statusCode ?? 0;
          if (REDIRECTS.has(status) && res.headers.location) {
            done({ location: res.headers.location });
            return;
          }
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > config.jwksMaxBytes) {
            fail('too-large', `${url.href} declares ${declared} bytes, more than the ${config.jwksMaxBytes} allowed (edge.externalJwt.jwksMaxBytes)`);
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > config.jwksMaxBytes) {
              fail('too-large', `${url.href} sent more than the ${config.jwksMaxBytes} bytes allowed (edge.externalJwt.jwksMaxBytes)`);
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => done({ status, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', networkFailure);
        },
      );
      function done(answer: { location: string } | { status: number; body: string }) {
        signal.removeEventListener('abort', onAbort);
        req.destroy();
        resolvePromise(answer);
      }
      function networkFailure(error: Error & { code?: string }) {
        if (TLS_ERRORS.test(error.code ?? '')) fail('tls', `TLS with ${url.host} failed: ${error.message}`);
        else fail('network', `${url.href}: ${error.message}`);
      }
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', networkFailure);
      req.end(payload);
    });
  }

  /** The addresses of `url`'s host, every one of them allowed, or a refusal. */
  async function checkedAddress(url: URL, signal: AbortSignal): Promise<string> {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && config.allowHttpJwks)) {
      throw new JwksFetchError('refused-url', url.href, `${url.href} is not an https URL (http needs edge.externalJwt.allowHttpJwks)`);
    }
    if (url.username || url.password) throw new JwksFetchError('refused-url', url.href, `${url.origin} carries credentials in the URL`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      // The resolver cannot be cancelled; the race stops waiting for it when the time budget runs out.
      let stop = () => {};
      const aborted = new Promise<never>((_, reject) => {
        stop = () => reject(new Error('aborted'));
        signal.addEventListener('abort', stop, { once: true });
      });
      try {
        addresses = await Promise.race([resolve(host), aborted]);
      } catch (error) {
        if (signal.aborted) throw new JwksFetchError('timeout', url.href, `resolving ${host} took longer than ${config.jwksTimeoutMs}ms`);
        throw new JwksFetchError('dns', url.href, `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }
    if (addresses.length === 0) throw new JwksFetchError('dns', url.href, `${host} has no addresses`);
    for (const address of addresses) {
      const refusal = addressRefusal(address, config.refusePrivateAddresses);
      if (refusal) throw new JwksFetchError('refused-address', url.href, `${host} resolves to ${refusal}`);
    }
    return addresses[0] as string;
  }

  return async (start, request = {}) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), config.jwksTimeoutMs);
    // A POST is not repeated elsewhere: its body (a code, a verifier) goes to the URL it was meant for only.
    const maxRedirects = request.form ? 0 : config.jwksMaxRedirects;
    try {
      let url = parseUrl(start);
      for (let hop = 0; ; hop++) {
        const address = await checkedAddress(url, controller.signal);
        const answer = await exchange(url, address, request, controller.signal);
        if ('body' in answer) return { url: url.href, ...answer };
        if (hop >= maxRedirects) {
          throw new JwksFetchError('too-many-redirects', start, `${start} redirected more than ${maxRedirects} times (edge.externalJwt.jwksMaxRedirects)`);
        }
        url = parseUrl(answer.location, url);
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new JwksFetchError('refused-url', text, `'${text}' is not a URL`);
  }
}
