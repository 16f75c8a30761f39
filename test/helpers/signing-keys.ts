/**
 * A key set for token signers in unit tests: the signer's own key and issuers, and the other controllers' keys as
 * a store would publish them, without a store. Builders return values and never assert.
 */
import type { PublishedSigningKey, SigningKeyRepository } from '../../src/persistence/repositories/signing-keys.js';
import type { ServerSigningKey } from '../../src/services/enrollment/enrollment-jwt.js';
import { loadPublishedKeys, type PublishedKeys } from '../../src/services/oidc-provider/oidc-signing-keys.js';

/** A store answering `published` with `rows` (those published at the time asked), counting its reads. */
export function fakeKeyStore(rows: PublishedSigningKey[] = []): SigningKeyRepository & { reads: number; rows: PublishedSigningKey[] } {
  const store = {
    reads: 0,
    rows,
    async makeCurrent() {},
    async published(now: Date) {
      store.reads++;
      return store.rows.filter((row) => row.retiredAt === null || (row.publishUntil !== null && row.publishUntil.getTime() > now.getTime()));
    },
  };
  return store;
}

/** A published key row of another controller (`retiredAt` and `publishUntil` null: its current key). */
export function keyRow(key: ServerSigningKey, issuers: string[], retired?: { retiredAt: Date; publishUntil: Date }): PublishedSigningKey {
  return { kid: key.kid, publicJwk: key.publicJwk, owner: `owner of ${key.kid}`, issuers, firstUsedAt: new Date(0), retiredAt: retired?.retiredAt ?? null, publishUntil: retired?.publishUntil ?? null };
}

/** The key set of a controller signing with `own` for `issuers`, beside the given rows of others. */
export function keySetOf(own: ServerSigningKey, issuers: string[], rows: PublishedSigningKey[] = [], now = new Date()): Promise<PublishedKeys> {
  return loadPublishedKeys({ keys: fakeKeyStore(rows), own: { signingKey: own, issuers } }, now);
}
