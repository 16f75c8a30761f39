/**
 * The one posture evaluator (reference facts §B5: one evaluator, one data shape): whether a posture check passes for
 * what one API session has reported, and for MFA checks how long it keeps passing. Pure: the state is read once per
 * request (posture-state.ts) and every check of that request is decided from it. Checks were validated when written
 * (posture-check-input.ts), so nothing here can fail on malformed data.
 *
 * MFA (facts §B1, §B4): passes once the session answered TOTP, for `timeoutSeconds` after the last answer (none
 * when ≤ 0). With `promptOnWake`/`promptOnUnlock`, a wake or unlock reported after the last answer leaves a grace of
 * five minutes from that event; after it the check fails until TOTP is answered again.
 */
import type { PostureCheck, ProcessMultiEntry } from '../../domain/posture-check.js';
import type { PostureFacts, PostureState } from '../../domain/posture-response.js';
import { parseVersion, satisfies } from './semver.js';

/** The reference's value for "no timeout" (`PostureCheckNoTimeout`). */
export const NO_TIMEOUT = -1;
/** How long an MFA check that prompts on wake or unlock keeps passing after the event (`MfaPromptGracePeriod`). */
export const MFA_PROMPT_GRACE_SECONDS = 300;

export interface CheckOutcome {
  isPassing: boolean;
  /** Seconds a pass lasts (MFA `timeoutSeconds`), or -1: none. */
  timeout: number;
  /** Seconds until the check stops passing; -1 when it never will; 0 when it does not pass. */
  timeoutRemaining: number;
  /** When the check stops passing, if it will. */
  timeoutAt: Date | null;
}

const untimed = (isPassing: boolean): CheckOutcome => ({ isPassing, timeout: NO_TIMEOUT, timeoutRemaining: isPassing ? NO_TIMEOUT : 0, timeoutAt: null });

/** Hex strings compared as the reference does: lower case, anything but hex digits dropped. */
const hex = (value: string): string => value.toLowerCase().replace(/[^0-9a-f]/g, '');

type ProcessFacts = Extract<PostureFacts, { typeId: 'PROCESS' }>;

function processPasses(reported: ProcessFacts | undefined, hashes: readonly string[], signers: readonly string[]): boolean {
  if (!reported?.isRunning) return false;
  if (hashes.length > 0 && !(reported.hash !== undefined && hashes.some((hash) => hex(hash) === hex(reported.hash as string)))) return false;
  if (signers.length === 0) return true;
  const wanted = new Set(signers.map(hex));
  return reported.signerFingerprints.some((signer) => wanted.has(hex(signer)));
}

function mfaOutcome(check: Extract<PostureCheck, { typeId: 'MFA' }>, state: PostureState, now: Date): CheckOutcome {
  const ignoresTimeout = check.ignoreLegacyEndpoints && state.legacyEndpoint;
  const timeout = check.timeoutSeconds > 0 && !ignoresTimeout ? check.timeoutSeconds : NO_TIMEOUT;
  const passedAt = state.mfaPassedAt;
  if (!passedAt) return { isPassing: false, timeout, timeoutRemaining: 0, timeoutAt: null };
  const deadlines: number[] = [];
  if (timeout > 0) deadlines.push(passedAt.getTime() + timeout * 1000);
  // The first prompting event after the last answer starts the grace period.
  const events = [check.promptOnWake ? state.wokenAt : null, check.promptOnUnlock ? state.unlockedAt : null].filter(
    (at): at is Date => at !== null && at > passedAt,
  );
  if (events.length > 0) deadlines.push(Math.min(...events.map((at) => at.getTime())) + MFA_PROMPT_GRACE_SECONDS * 1000);
  if (deadlines.length === 0) return { isPassing: true, timeout, timeoutRemaining: NO_TIMEOUT, timeoutAt: null };
  const deadline = Math.min(...deadlines);
  const isPassing = now.getTime() < deadline;
  return { isPassing, timeout, timeoutRemaining: isPassing ? Math.ceil((deadline - now.getTime()) / 1000) : 0, timeoutAt: new Date(deadline) };
}

function multiPasses(semantic: 'AllOf' | 'AnyOf', entries: readonly ProcessMultiEntry[], state: PostureState): boolean {
  const passes = (entry: ProcessMultiEntry) => processPasses(state.processes.get(entry.path), entry.hashes, entry.signerFingerprints);
  return semantic === 'AllOf' ? entries.every(passes) : entries.some(passes);
}

/** Whether `check` passes for `state` at `now`, and for how long. */
export function evaluateCheck(check: PostureCheck, state: PostureState, now: Date): CheckOutcome {
  switch (check.typeId) {
    case 'OS': {
      const reported = state.os;
      const entry = reported && check.operatingSystems.find((os) => os.type.toLowerCase() === reported.type.toLowerCase());
      if (!reported || !entry) return untimed(false);
      if (entry.versions.length === 0) return untimed(true);
      const version = parseVersion(reported.version);
      return untimed(version !== undefined && entry.versions.some((range) => satisfies(version, range)));
    }
    case 'MAC': {
      const wanted = new Set(check.macAddresses.map(hex));
      return untimed((state.mac?.macAddresses ?? []).some((mac) => wanted.has(hex(mac))));
    }
    case 'DOMAIN': {
      const reported = state.domain?.domain.trim().toLowerCase();
      return untimed(reported !== undefined && check.domains.some((domain) => domain.trim().toLowerCase() === reported));
    }
    case 'PROCESS': {
      const { path, hashes, signerFingerprint } = check.process;
      return untimed(processPasses(state.processes.get(path), hashes, signerFingerprint ? [signerFingerprint] : []));
    }
    case 'PROCESS_MULTI':
      return untimed(multiPasses(check.semantic, check.processes, state));
    case 'MFA':
      return mfaOutcome(check, state, now);
  }
}
