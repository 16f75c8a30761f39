/**
 * The trust material the router checks SDK credentials with, offline (decision 0062): the controller's token signing
 * keys by `kid`, the issuers it signs for, and the CAs client certificates may chain to. Replaced whole each time the
 * controller pushes it (at connect, and when keys or CAs change), so a key rotation reaches the router without a
 * restart. Until the first push the router has none and must refuse SDK channels rather than guess.
 */
import type { TrustState } from '../../control-protocol/bodies.js';

export interface TrustStore {
  /** The latest state pushed, or undefined before the first. */
  readonly current: TrustState | undefined;
  /** When it was received (ms since the epoch), 0 before the first. */
  readonly receivedAt: number;
  replace(state: TrustState, now: number): void;
  /** The public JWK with this `kid`, if the controller published one. */
  key(kid: string): Record<string, unknown> | undefined;
  /** Calls `listener` after every replacement; returns the way to stop. */
  subscribe(listener: (state: TrustState) => void): () => void;
}

export function createTrustStore(): TrustStore {
  let current: TrustState | undefined;
  let receivedAt = 0;
  let byKid = new Map<string, Record<string, unknown>>();
  const listeners = new Set<(state: TrustState) => void>();
  return {
    get current() {
      return current;
    },
    get receivedAt() {
      return receivedAt;
    },
    replace(state, now) {
      current = state;
      receivedAt = now;
      byKid = new Map(state.jwks.keys.filter((k) => typeof k.kid === 'string').map((k) => [k.kid as string, k]));
      for (const listener of listeners) listener(state);
    },
    key: (kid) => byKid.get(kid),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
