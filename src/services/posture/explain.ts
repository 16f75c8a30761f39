/**
 * Posture as an administrator reads it (issue 45: the reach page and the change preview): whether an identity's
 * current posture data passes a set of checks, and when a check fails, why, in a sentence ("no response for the OS
 * check", "process X not running", "MFA not passed since ..."). Posture is reported per API session (decision 0029),
 * and a dial comes from one session, so a set of checks passes when one session passes all of them. Pure: the
 * sessions' states are read by the caller; the one evaluator (evaluate.ts) decides each check.
 */
import type { PostureCheck, ProcessCheck } from '../../domain/posture-check.js';
import type { PostureState } from '../../domain/posture-response.js';
import { evaluateCheck } from './evaluate.js';

/** One API session of an identity and what it has reported. */
export interface SessionPosture {
  session: { kind: 'legacy' | 'oidc'; id: string; createdAt: Date };
  state: PostureState;
}

/** Whether some session of the identity passes every check: a dial from it would be allowed by this set. */
export function passesAll(checks: readonly PostureCheck[], sessions: readonly SessionPosture[], now: Date): boolean {
  return checks.length === 0 || sessions.some((session) => checks.every((check) => evaluateCheck(check, session.state, now).isPassing));
}

/** Why `check` fails on the newest session of the identity, or undefined when some session passes it. */
export function checkFailure(check: PostureCheck, sessions: readonly SessionPosture[], now: Date): string | undefined {
  if (sessions.length === 0) return `no API session of the identity reports anything (it is not logged in)`;
  if (sessions.some((session) => evaluateCheck(check, session.state, now).isPassing)) return undefined;
  const newest = [...sessions].sort((a, b) => b.session.createdAt.getTime() - a.session.createdAt.getTime())[0]!;
  return reasonOf(check, newest.state, now);
}

function processReason(state: PostureState, process: Pick<ProcessCheck, 'path'>): string {
  const reported = state.processes.get(process.path);
  if (!reported) return `no response for the process ${process.path}`;
  if (!reported.isRunning) return `process ${process.path} not running`;
  return `process ${process.path} runs, but not with a hash or signer the check allows`;
}

/** The sentence for a check that fails on `state`. */
function reasonOf(check: PostureCheck, state: PostureState, now: Date): string {
  switch (check.typeId) {
    case 'OS':
      if (!state.os) return 'no response for the OS check';
      return `the operating system reported (${state.os.type} ${state.os.version}) is not one the check allows`;
    case 'MAC':
      if (!state.mac) return 'no response for the MAC address check';
      return `none of the ${state.mac.macAddresses.length} MAC address(es) reported is one the check allows`;
    case 'DOMAIN':
      if (!state.domain) return 'no response for the domain check';
      return `the domain reported ('${state.domain.domain}') is not one the check allows`;
    case 'PROCESS':
      return processReason(state, check.process);
    case 'PROCESS_MULTI': {
      const failing = check.processes.filter((entry) => !evaluateCheck({ ...check, semantic: 'AllOf', processes: [entry] }, state, now).isPassing);
      const reasons = failing.map((entry) => processReason(state, entry));
      return check.semantic === 'AllOf' ? reasons[0]! : `none of the processes passes: ${reasons.join('; ')}`;
    }
    case 'MFA': {
      if (!state.mfaPassedAt) return 'MFA not passed on the session (no TOTP answer)';
      const outcome = evaluateCheck(check, state, now);
      const until = outcome.timeoutAt ? `; that pass ended at ${outcome.timeoutAt.toISOString()}` : '';
      return `MFA not passed since ${state.mfaPassedAt.toISOString()}${until}`;
    }
  }
}
