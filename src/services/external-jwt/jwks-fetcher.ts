/**
 * Fetches and caches the JWKS (RFC 7517 §5) of external JWT signers, on terms an administrator's URL cannot abuse:
 *
 * - https only (http when `allowHttpJwks`), no credentials in the URL;
 * - the host is resolved here and every address checked (policy/fetch-address.ts) before connecting, and the
 *   connection goes to the checked address, so a DNS answer that changes between check and connect (rebinding)
 *   gains nothing; TLS still verifies the certificate against the host name;
 * - redirects are followed by hand, at most `jwksMaxRedirects`, each hop checked like the first;
 * - one time budget for the whole fetch (`jwksTimeout`, redirects included) and a body limit (`jwksMaxBytes`);
 * - TLS trusts the system roots plus the controller's own CA bundle.
 *
 * Key sets are cached per signer. A token naming an unknown `kid` may re-fetch, at most once per
 * `jwksRefreshInterval`; cached sets are also re-fetched once older than `maxAgeMs`, so a key the provider has
 * withdrawn stops verifying. A failed fetch drops what was cached (the signer fails closed), is logged once, and is
 * remembered for the refresh interval so that a stream of logins cannot make the controller hammer the provider.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { JSONWebKeySet } from 'jose';
import type { ExternalJwtConfig } from '../../config/types.js';
import { addressRefusal } from '../../policy/fetch-address.js';
import type { Clock } from '../../shared/clock.js';

/** Why a key set could not be had; each is a distinct, loggable reason. */
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

/** Which signer's keys, and where they are published. */
export interface JwksSource {
  signerId: string;
  url: string;
}

export interface JwksFetcher {
  /** The signer's key set: cached, or fetched now. Throws JwksFetchError. */
  keys(source: JwksSource): Promise<JSONWebKeySet>;
  /**
   * Fetches again (a token named a `kid` the cached set lacks) unless the last fetch for this signer began less
   * than the refresh interval ago; then the cached set (or the cached failure) is the answer.
   */
  refresh(source: JwksSource): Promise<{ keys: JSONWebKeySet; refreshed: boolean }>;
  /** Drops what is cached for a signer (it changed or was deleted). */
  forget(signerId: string): void;
}

/** Where fetch failures are reported: one line per failed fetch, never token contents. */
export interface FetchLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface JwksFetcherOptions {
  config: ExternalJwtConfig;
  clock: Clock;
  /** CA certificates trusted besides the system roots (the controller's own bundle). */
  caPems: readonly string[];
  log?: FetchLog;
  /** Every address of a host name (default: the system resolver); tests inject answers. */
  resolve?(host: string): Promise<string[]>;
  /** Age after which a cached set is fetched again before use (default 1 hour). */
  maxAgeMs?: number;
}

const DEFAULT_MAX_AGE_MS = 60 * 60_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TLS_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/;

interface CacheEntry {
  url: string;
  /** When the last fetch began (clock time). */
  attemptedAt: number;
  keys?: JSONWebKeySet;
  failure?: JwksFetchError;
  inFlight?: Promise<JSONWebKeySet>;
}

const systemResolve = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * @example
 * const fetcher = createJwksFetcher({ config: DEFAULT_EXTERNAL_JWT, clock: systemClock, caPems });
 * const jwks = await fetcher.keys({ signerId: signer.id, url: signer.jwksEndpoint });
 */
export function createJwksFetcher(options: JwksFetcherOptions): JwksFetcher {
  const { config, clock } = options;
  const resolve = options.resolve ?? systemResolve;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const ca = [...rootCertificates, ...options.caPems];
  const cache = new Map<string, CacheEntry>();

  function fetchFor(source: JwksSource): Promise<JSONWebKeySet> {
    const current = cache.get(source.signerId);
    if (current?.inFlight && current.url === source.url) return current.inFlight;
    const entry: CacheEntry = { url: source.url, attemptedAt: clock.now().getTime() };
    entry.inFlight = download(source.url).then(
      (keys) => {
        entry.keys = keys;
        delete entry.inFlight;
        return keys;
      },
      (error: unknown) => {
        const failure = error instanceof JwksFetchError ? error : new JwksFetchError('network', source.url, String(error));
        entry.failure = failure;
        delete entry.inFlight;
        options.log?.warn(
          { signerId: source.signerId, jwksEndpoint: source.url, reason: failure.reason },
          `could not fetch the JWKS of external JWT signer ${source.signerId}: ${failure.message}`,
        );
        throw failure;
      },
    );
    cache.set(source.signerId, entry);
    return entry.inFlight;
  }

  /** The cached answer for `source` if the entry is for its URL and no older than `maxMs`. */
  function fresh(source: JwksSource, maxMs: number): CacheEntry | undefined {
    const entry = cache.get(source.signerId);
    if (!entry || entry.url !== source.url) return undefined;
    return clock.now().getTime() - entry.attemptedAt < maxMs ? entry : undefined;
  }

  function answer(entry: CacheEntry): Promise<JSONWebKeySet> {
    if (entry.inFlight) return entry.inFlight;
    if (entry.keys) return Promise.resolve(entry.keys);
    return Promise.reject(entry.failure);
  }

  /** One GET of `url` (no redirects followed): the body, or where it redirects to. */
  function get(url: URL, address: string, signal: AbortSignal): Promise<{ location: string } | { body: string }> {
    const family = isIP(address);
    // The connection goes to the checked address whatever the resolver would say now (see the module comment).
    const pinned: LookupFunction = (_host, lookupOptions, callback) =>
      lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
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
          method: 'GET',
          headers: { accept: 'application/jwk-set+json, application/json' },
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
          if (status !== 200) {
            fail('http-status', `${url.href} answered HTTP ${status}`);
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
          res.on('end', () => done({ body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', networkFailure);
        },
      );
      function done(answer: { location: string } | { body: string }) {
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
      req.end();
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

  async function download(start: string): Promise<JSONWebKeySet> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), config.jwksTimeoutMs);
    try {
      let url = parseUrl(start);
      for (let hop = 0; ; hop++) {
        const address = await checkedAddress(url, controller.signal);
        const answer = await get(url, address, controller.signal);
        if ('body' in answer) return parseJwks(url.href, answer.body);
        if (hop >= config.jwksMaxRedirects) {
          throw new JwksFetchError('too-many-redirects', start, `${start} redirected more than ${config.jwksMaxRedirects} times (edge.externalJwt.jwksMaxRedirects)`);
        }
        url = parseUrl(answer.location, url);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    keys(source) {
      const entry = fresh(source, maxAgeMs);
      // A failure is remembered for the refresh interval only; keys for up to maxAgeMs.
      if (entry && (entry.keys || entry.inFlight || clock.now().getTime() - entry.attemptedAt < config.jwksRefreshIntervalMs)) return answer(entry);
      return fetchFor(source);
    },
    async refresh(source) {
      const recent = fresh(source, config.jwksRefreshIntervalMs);
      if (recent) return { keys: await answer(recent), refreshed: false };
      return { keys: await fetchFor(source), refreshed: true };
    },
    forget(signerId) {
      cache.delete(signerId);
    },
  };
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new JwksFetchError('refused-url', text, `'${text}' is not a URL`);
  }
}

/** The body as a JWK Set: an object with a `keys` array of objects that each name their `kty`. */
function parseJwks(url: string, body: string): JSONWebKeySet {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new JwksFetchError('invalid-jwks', url, `${url} did not answer JSON`);
  }
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'object' && k !== null && typeof (k as { kty?: unknown }).kty === 'string')) {
    throw new JwksFetchError('invalid-jwks', url, `${url} did not answer a JWK Set (an object with a "keys" array of keys)`);
  }
  return { keys } as JSONWebKeySet;
}
