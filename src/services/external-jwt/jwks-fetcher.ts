/**
 * Fetches and caches the JWKS (RFC 7517 §5) of external JWT signers, on the terms of guarded-fetch.ts (https only, every address checked, redirects by hand, one time budget, a body limit,
 * the system roots plus the controller's own CA bundle).
 *
 * Key sets are cached per signer. A token naming an unknown `kid` may re-fetch, at most once per
 * `jwksRefreshInterval`; cached sets are also re-fetched once older than `maxAgeMs`, so a key the provider has
 * withdrawn stops verifying. A failed fetch drops what was cached (the signer fails closed), is logged once, and is
 * remembered for the refresh interval so that a stream of logins cannot make the controller hammer the provider.
 */
import type { JSONWebKeySet } from 'jose';
import type { ExternalJwtConfig } from '../../config/types.js';
import { createGuardedFetch, JwksFetchError } from './guarded-fetch.js';
import type { Clock } from '../../shared/clock.js';

export { JwksFetchError, type JwksFetchFailure } from './guarded-fetch.js';

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

interface CacheEntry {
  url: string;
  /** When the last fetch began (clock time). */
  attemptedAt: number;
  keys?: JSONWebKeySet;
  failure?: JwksFetchError;
  inFlight?: Promise<JSONWebKeySet>;
}

/**
 * @example
 * const fetcher = createJwksFetcher({ config: DEFAULT_EXTERNAL_JWT, clock: systemClock, caPems });
 * const jwks = await fetcher.keys({ signerId: signer.id, url: signer.jwksEndpoint });
 */
export function createJwksFetcher(options: JwksFetcherOptions): JwksFetcher {
  const { config, clock } = options;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const guarded = createGuardedFetch({ config, caPems: options.caPems, ...(options.resolve ? { resolve: options.resolve } : {}) });
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

  async function download(start: string): Promise<JSONWebKeySet> {
    const answer = await guarded(start, { headers: { accept: 'application/jwk-set+json, application/json' } });
    if (answer.status !== 200) throw new JwksFetchError('http-status', answer.url, `${answer.url} answered HTTP ${answer.status}`);
    return parseJwks(answer.url, answer.body);
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
