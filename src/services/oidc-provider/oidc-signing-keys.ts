/**
 * The signing keys of every controller sharing the store (docs/decisions/0034-several-controllers.md). A controller
 * signs with its server certificate's key, so replacing the certificate replaces the key: tokens signed with the
 * previous key must keep verifying, here and at every relying party reading `/oidc/keys`, until they expire (RFC 7517
 * §5; OpenID Connect Core 1.0 §10.1.1: a retired key stays in the JWKS while tokens signed by it may still be
 * presented). With several controllers, a token issued by one is presented to another, so each publishes and accepts
 * the current and live retired keys of all of them, and the `iss` values all of them sign for.
 */
import { performance } from 'node:perf_hooks';
import type { JWK } from 'jose';
import type { SigningKeyRepository } from '../../persistence/repositories/signing-keys.js';
import type { ServerSigningKey } from '../enrollment/enrollment-jwt.js';

/** A key that verifies tokens: this controller's or another's, current or retired (published until `publishUntil`). */
export interface VerificationKey {
  readonly kid: string;
  readonly publicJwk: JWK;
  /** Null while it is its owner's current key. */
  readonly publishUntil: Date | null;
  readonly retiredAt: Date | null;
}

/**
 * What this controller knows of the keys in the store. Lookups that miss (a kid, or an `iss`, not seen yet: another
 * controller started, or rotated, since the last read) re-read the store, at most once per `minReloadIntervalMs`
 * whatever the number of requests, so tokens with made-up kids cannot load the store.
 */
export interface PublishedKeys {
  /**
   * The key named `kid` if published at `now`, and whether `iss` is an issuer of a controller sharing the store.
   * `mayReload` false (a token not of the form our tokens have) answers from what is known, without the store.
   */
  resolve(kid: string, iss: string, now: Date, mayReload: boolean): Promise<{ key: VerificationKey; issuerKnown: boolean } | undefined>;
  /** The keys published at `now`: this controller's current key first, the other current keys, then retired ones. */
  list(now: Date): Promise<VerificationKey[]>;
}

/** At most one re-read of the store's keys per this interval (a verification miss or a JWKS request). */
export const KEY_RELOAD_INTERVAL_MS = 1_000;

/**
 * Registers `signingKey` as the current key of `owner` (the controller's name) at start, with the `iss` values it
 * signs for, and retires the keys `owner` used before it: published for the longest token lifetime from now, which
 * covers every token they signed, since none was signed after now.
 *
 * @example
 * await publishSigningKey({ keys, owner: 'CN=ctrl-a', signingKey, issuers, now: clock.now(), longestTokenLifetimeMs: 30 * 60_000 });
 */
export async function publishSigningKey(input: {
  keys: SigningKeyRepository;
  owner: string;
  signingKey: ServerSigningKey;
  issuers: readonly string[];
  now: Date;
  longestTokenLifetimeMs: number;
}): Promise<void> {
  const { keys, signingKey, now } = input;
  const publishUntil = new Date(now.getTime() + input.longestTokenLifetimeMs);
  await keys.makeCurrent(input.owner, { kid: signingKey.kid, publicJwk: signingKey.publicJwk, issuers: input.issuers }, now, publishUntil);
}

const isPublished = (key: VerificationKey, now: Date) => key.publishUntil === null || key.publishUntil.getTime() > now.getTime();

/**
 * The key set over the store, with this controller's own key and issuers always in it (they verify even while the
 * store cannot be read). `monotonic` paces re-reads; it is not the business clock, which decides what is published.
 *
 * @example
 * const published = await loadPublishedKeys({ keys, own: { signingKey, issuers } }, clock.now());
 */
export async function loadPublishedKeys(
  deps: { keys: SigningKeyRepository; own: { signingKey: ServerSigningKey; issuers: readonly string[] }; minReloadIntervalMs?: number; monotonic?: () => number },
  now: Date,
): Promise<PublishedKeys> {
  const { keys, own } = deps;
  const interval = deps.minReloadIntervalMs ?? KEY_RELOAD_INTERVAL_MS;
  const monotonic = deps.monotonic ?? (() => performance.now());
  const ownKey: VerificationKey = { kid: own.signingKey.kid, publicJwk: own.signingKey.publicJwk, publishUntil: null, retiredAt: null };
  let state = { byKid: new Map<string, VerificationKey>([[ownKey.kid, ownKey]]), issuers: new Set(own.issuers) };
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  async function read(at: Date): Promise<void> {
    const rows = await keys.published(at);
    const byKid = new Map<string, VerificationKey>([[ownKey.kid, ownKey]]);
    const issuers = new Set(own.issuers);
    for (const row of rows) {
      if (typeof row.publicJwk.alg !== 'string') continue;
      if (row.kid !== ownKey.kid) byKid.set(row.kid, { kid: row.kid, publicJwk: row.publicJwk, publishUntil: row.publishUntil, retiredAt: row.retiredAt });
      for (const issuer of row.issuers) issuers.add(issuer);
    }
    state = { byKid, issuers };
  }

  /** Re-reads the store unless it was read less than `interval` ago; concurrent callers share one read. */
  function reload(at: Date): Promise<void> {
    if (loading) return loading;
    if (monotonic() - loadedAt < interval) return Promise.resolve();
    loadedAt = monotonic();
    loading = read(at).finally(() => (loading = undefined));
    return loading;
  }

  await reload(now);

  const find = (kid: string, now: Date) => {
    const key = state.byKid.get(kid);
    return key && isPublished(key, now) ? key : undefined;
  };

  return {
    async resolve(kid, iss, now, mayReload) {
      if (mayReload && (!find(kid, now) || !state.issuers.has(iss))) await reload(now);
      const key = find(kid, now);
      return key ? { key, issuerKnown: state.issuers.has(iss) } : undefined;
    },
    async list(now) {
      // A JWKS answer from what is known when the store cannot be read: the keys it names still verify.
      await reload(now).catch(() => undefined);
      const others = [...state.byKid.values()].filter((key) => key !== ownKey && isPublished(key, now));
      const current = others.filter((key) => key.retiredAt === null);
      const retired = others.filter((key) => key.retiredAt !== null).sort((a, b) => (b.retiredAt as Date).getTime() - (a.retiredAt as Date).getTime());
      return [ownKey, ...current, ...retired];
    },
  };
}
