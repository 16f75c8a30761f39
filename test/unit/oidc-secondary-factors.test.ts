/**
 * The secondary-factor decision of a login: which factors the auth policy (and, later, the identity's MFA
 * enrollment) leave outstanding after the primary credential was accepted.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outstandingFactors } from '../../src/policy/secondary-factors.js';

const identity = { id: 'id-1' };
const policy = (requireTotp: boolean, requireExtJwt: string | null) => ({ secondary: { requireTotp, requireExtJwt } });

describe('outstanding secondary factors', () => {
  it('leaves nothing outstanding when the policy requires no secondary factor', () => {
    assert.deepEqual(outstandingFactors(identity, policy(false, null)), []);
  });

  it('requires TOTP when the policy says so', () => {
    assert.deepEqual(outstandingFactors(identity, policy(true, null)), [{ kind: 'totp' }]);
  });

  it('requires TOTP of an identity that enrolled it, whatever the policy', () => {
    assert.deepEqual(outstandingFactors({ ...identity, hasVerifiedTotp: true }, policy(false, null)), [{ kind: 'totp' }]);
  });

  it('lists the secondary external JWT signer after TOTP', () => {
    assert.deepEqual(outstandingFactors(identity, policy(true, 'signer-1')), [{ kind: 'totp' }, { kind: 'ext-jwt', signerId: 'signer-1' }]);
    assert.deepEqual(outstandingFactors(identity, policy(false, 'signer-1')), [{ kind: 'ext-jwt', signerId: 'signer-1' }]);
  });
});
