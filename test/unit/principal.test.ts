/**
 * The one principal check (src/policy/principal.ts, decision 0019): from plain facts about the identity and the
 * session that names it, whether the caller may act now and, if not, why; and the loader that reads the identity
 * for it (src/services/authentication/principal.ts).
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newIdentity, type Identity } from '../../src/domain/identity.js';
import { decidePrincipal, type PrincipalFacts, type PrincipalVerdict } from '../../src/policy/principal.js';
import { createPrincipalLoader } from '../../src/services/authentication/principal.js';

const now = new Date('2030-01-01T12:00:00Z');
const seconds = (n: number) => new Date(now.getTime() + n * 1000);

const enabled = { disabled: false, disabledUntil: null };
const disabledForGood = { disabled: true, disabledUntil: null };
const lockedOut = { disabled: true, disabledUntil: seconds(60) };
const lockoutOver = { disabled: true, disabledUntil: seconds(-1) };
const lockoutEndsNow = { disabled: true, disabledUntil: now };

/** A stored identity with the given status (the loader reads nothing else of it). */
function identityWith(id: string, status: Pick<Identity, 'disabled' | 'disabledUntil'>): Identity {
  const base = newIdentity({ id, name: id, typeId: 'Default', isAdmin: false, roleAttributes: [], authPolicyId: null, externalId: null, tags: {} }, seconds(-7200));
  return { ...base, disabledAt: status.disabled ? seconds(-3600) : null, updatedAt: seconds(-3600), ...status };
}

const refused = (reason: string, description: string): PrincipalVerdict => ({ ok: false, reason, description }) as PrincipalVerdict;

describe('the principal decision', () => {
  const table: [string, PrincipalFacts, PrincipalVerdict][] = [
    ['an enabled identity at a login may act', { identity: enabled }, { ok: true }],
    ['an identity that does not exist may not', { identity: undefined }, refused('missing', 'the identity no longer exists')],
    ['a null identity (not found) may not', { identity: null }, refused('missing', 'the identity no longer exists')],
    ['an identity disabled without end may not', { identity: disabledForGood }, refused('disabled', 'the identity is disabled')],
    ['an identity locked out until later may not', { identity: lockedOut }, refused('disabled', 'the identity is disabled')],
    ['a disabled identity whose disabledUntil has passed may act again', { identity: lockoutOver }, { ok: true }],
    ['a disabled identity whose disabledUntil is this instant may act again', { identity: lockoutEndsNow }, { ok: true }],
    ['a live session of an enabled identity may act', { identity: enabled, session: { expiresAt: seconds(1), revoked: false, ownedByIdentity: true } }, { ok: true }],
    ['a credential naming no session may not', { identity: enabled, session: null }, refused('no-session', 'no session has this token')],
    ['a revoked session may not', { identity: enabled, session: { revoked: true } }, refused('revoked', 'the session has been revoked')],
    ['a session of another identity may not', { identity: enabled, session: { ownedByIdentity: false } }, refused('other-identity', 'the session belongs to another identity')],
    ['a session past its expiry may not', { identity: enabled, session: { expiresAt: seconds(-1) } }, refused('expired', 'the session has expired')],
    ['a session expiring this instant may not', { identity: enabled, session: { expiresAt: now } }, refused('expired', 'the session has expired')],
    ['a live session of a disabled identity may not', { identity: lockedOut, session: { expiresAt: seconds(60) } }, refused('disabled', 'the identity is disabled')],
    ['a live session of a lockout that has run out may act', { identity: lockoutOver, session: { expiresAt: seconds(60) } }, { ok: true }],
    ['an expired session is expired even when its identity is gone', { identity: undefined, session: { expiresAt: seconds(-1) } }, refused('expired', 'the session has expired')],
    ['a revoked session is revoked even when its identity is disabled', { identity: disabledForGood, session: { revoked: true } }, refused('revoked', 'the session has been revoked')],
  ];

  for (const [sentence, facts, verdict] of table) {
    it(sentence, () => {
      assert.deepEqual(decidePrincipal(facts, now), verdict);
    });
  }
});

describe('the principal loader', () => {
  const stored = new Map([
    ['alice', identityWith('alice', enabled)],
    ['bob', identityWith('bob', lockedOut)],
    ['carol', identityWith('carol', lockoutOver)],
  ]);
  const loader = createPrincipalLoader({ identities: { findById: async (id) => stored.get(id) }, clock: { now: () => now } });

  it('returns the stored identity when it may act', async () => {
    assert.deepEqual(await loader.load('alice'), { ok: true, identity: stored.get('alice') });
    assert.deepEqual(await loader.load('carol'), { ok: true, identity: stored.get('carol') });
  });

  it('refuses an unknown or disabled identity with the reason', async () => {
    assert.deepEqual(await loader.load('nobody'), refused('missing', 'the identity no longer exists'));
    assert.deepEqual(await loader.load('bob'), refused('disabled', 'the identity is disabled'));
  });

  it('decides at the instant it is given rather than the clock', async () => {
    assert.deepEqual(await loader.load('bob', { now: seconds(61) }), { ok: true, identity: stored.get('bob') });
  });

  it('refuses on the session facts before the identity', async () => {
    assert.deepEqual(await loader.load('alice', { session: { expiresAt: seconds(-5) } }), refused('expired', 'the session has expired'));
    assert.deepEqual(await loader.load('bob', { session: null }), refused('no-session', 'no session has this token'));
  });
});
