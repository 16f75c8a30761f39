/**
 * Posture responses: what a client reports about its device, and the facts the posture evaluator reads from them
 * (reference facts §B2, §B3). Each response fills one slot of its API session; a later response to the same slot
 * replaces it. Kept per API session, never per identity, so two devices of one identity never overwrite each other.
 */

/** Which API session a response belongs to: a legacy session, or an OIDC one (`z_asid`). */
export interface ApiSessionRef {
  kind: 'legacy' | 'oidc';
  id: string;
}

/** The facts of one slot, as stored. */
export type PostureFacts =
  | { typeId: 'OS'; type: string; version: string; build?: string }
  | { typeId: 'MAC'; macAddresses: string[] }
  | { typeId: 'DOMAIN'; domain: string }
  | { typeId: 'PROCESS'; path: string; isRunning: boolean; hash?: string; signerFingerprints: string[] }
  /** The device woke or was unlocked (ENDPOINT_STATE responses); the time is the slot's `receivedAt`. */
  | { typeId: 'ENDPOINT_STATE'; event: 'woken' | 'unlocked' }
  /** The session answered TOTP (`authenticate/mfa`); the time is the slot's `receivedAt`. */
  | { typeId: 'MFA' };

export interface PostureSlot {
  /** `OS`, `MAC`, `DOMAIN`, `PROCESS:<path>`, `ENDPOINT_STATE:woken`, `ENDPOINT_STATE:unlocked`, `MFA`. */
  slot: string;
  facts: PostureFacts;
  receivedAt: Date;
}

/** The slot a process's facts fill: processes are known by path, whichever check asked. */
export const processSlot = (path: string): string => `PROCESS:${path}`;

/** Everything one API session has reported, with the times MFA was proven, read once per request. */
export interface PostureState {
  os?: Extract<PostureFacts, { typeId: 'OS' }>;
  mac?: Extract<PostureFacts, { typeId: 'MAC' }>;
  domain?: Extract<PostureFacts, { typeId: 'DOMAIN' }>;
  /** By path. */
  processes: ReadonlyMap<string, Extract<PostureFacts, { typeId: 'PROCESS' }>>;
  /** The last TOTP answer of the session (at login or later), if any. */
  mfaPassedAt: Date | null;
  wokenAt: Date | null;
  unlockedAt: Date | null;
  /**
   * The client is an old or unknown SDK (MFA checks with `ignoreLegacyEndpoints` give it no timeout; reference
   * facts §B1).
   */
  legacyEndpoint: boolean;
}

/** The state read from a session's slots and its MFA proof at login. */
export function postureStateOf(slots: readonly PostureSlot[], loginMfaAt: Date | null, legacyEndpoint: boolean): PostureState {
  const state: PostureState = { processes: new Map(), mfaPassedAt: loginMfaAt, wokenAt: null, unlockedAt: null, legacyEndpoint };
  const processes = new Map<string, Extract<PostureFacts, { typeId: 'PROCESS' }>>();
  const later = (a: Date | null, b: Date) => (a && a > b ? a : b);
  for (const { facts, receivedAt } of slots) {
    switch (facts.typeId) {
      case 'OS':
        state.os = facts;
        break;
      case 'MAC':
        state.mac = facts;
        break;
      case 'DOMAIN':
        state.domain = facts;
        break;
      case 'PROCESS':
        processes.set(facts.path, facts);
        break;
      case 'ENDPOINT_STATE':
        if (facts.event === 'woken') state.wokenAt = later(state.wokenAt, receivedAt);
        else state.unlockedAt = later(state.unlockedAt, receivedAt);
        break;
      case 'MFA':
        state.mfaPassedAt = later(state.mfaPassedAt, receivedAt);
        break;
    }
  }
  state.processes = processes;
  return state;
}
