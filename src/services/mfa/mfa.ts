/**
 * TOTP multi-factor authentication of an identity (spec: MFA enrollment states, MFA operations; reference facts
 * §8): start an enrollment, show it while pending (provisioning URL, QR code, recovery codes), verify it with a
 * first code, remove it, view or regenerate recovery codes, and answer the TOTP factor of a login.
 *
 * Stricter than the reference: a TOTP code is accepted at most once per time step (replays refused), failed codes
 * lock the enrollment for a while, recovery codes are single-use and compared in constant time, and the secret and
 * codes are sealed at rest. Knows nothing of HTTP.
 *
 * Units of work (decision 0020): each change commits with its audit entry, and a change that a code allows commits
 * with the code's acceptance (its time step recorded, or its recovery code spent), so a failure part-way spends no
 * code and changes nothing. Counting an attempt and locking after too many stay outside: they must hold whatever
 * the rest of the request does.
 */
import { secretsEqual } from '../../crypto/secrets.js';
import type { Actor } from '../../domain/audit.js';
import type { Identity } from '../../domain/identity.js';
import type { MfaEnrollment } from '../../domain/mfa.js';
import { ApiError } from '../../errors/api-error.js';
import { uniqueViolationError } from '../../errors/unique-violation.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import { classifyCode, matchingStep, newRecoveryCodes, newTotpSecret, provisioningUrl } from '../../policy/totp.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import { formatDuration } from '../../shared/durations.js';
import type { AuditedChanges, AuditedScope } from '../audit/audited-changes.js';
import type { SecurityEvents } from '../audit/security-events.js';

/** What the API shows of an enrollment; the provisioning URL and recovery codes only while it is pending. */
export interface MfaStatus {
  id: string;
  identityId: string;
  isVerified: boolean;
  provisioningUrl?: string;
  recoveryCodes?: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** How a code was answered. */
export type CodeKind = 'totp' | 'recovery';

export interface MfaService {
  /** Starts an enrollment (pending until verified); 409 MFA_EXISTS when the identity has one. */
  start(identity: Identity): Promise<MfaStatus>;
  /** The identity's enrollment; 404 when it has none. */
  status(identity: Identity): Promise<MfaStatus>;
  /** PNG of the provisioning URL; 404 when there is no enrollment or it is already verified. */
  qrCode(identity: Identity): Promise<Buffer>;
  /** Completes a pending enrollment with a TOTP code; 404 when none is pending. */
  verify(identity: Identity, code: string | undefined): Promise<void>;
  /** Removes the enrollment; a verified one needs a valid TOTP or recovery code, a pending one none (any is ignored). */
  remove(identity: Identity, code: string | undefined): Promise<void>;
  /** The unused recovery codes of a verified enrollment, shown against a TOTP code. */
  recoveryCodes(identity: Identity, code: string | undefined): Promise<MfaStatus & { recoveryCodes: string[] }>;
  /** Replaces every recovery code of a verified enrollment, against a TOTP or recovery code; returns the new ones. */
  regenerateRecoveryCodes(identity: Identity, code: string | undefined): Promise<string[]>;
  /**
   * Answers the TOTP factor of a login with a TOTP or recovery code of the verified enrollment. With
   * `completePending`, a TOTP code also completes a pending enrollment (a legacy session that enrolled while
   * partially authenticated). 409 MFA_NOT_ENROLLED when there is nothing to answer with.
   */
  answer(identity: Identity, code: string | undefined, options?: { completePending?: boolean }): Promise<CodeKind>;
  /** An administrator removes an identity's enrollment (404 when the identity or enrollment does not exist). */
  removeByAdmin(identityId: string, actor: Actor): Promise<void>;
  /** Whether the identity has completed enrollment (its logins then need TOTP). */
  hasVerified(identityId: string): Promise<boolean>;
}

export interface MfaServiceDeps {
  mfa: MfaRepository;
  identities: IdentityRepository;
  /** A change of an enrollment and its audit entry (and the acceptance of the code that allowed it), in one transaction. */
  changes: AuditedChanges<MfaRepository>;
  clock: Clock;
  /** `edge.totp.hostname`: the issuer shown by authenticator apps. */
  issuer: string;
  /** Failed codes in a row before the enrollment is locked (default 5). */
  maxFailedCodes?: number;
  /** How long a lock lasts (default 5 minutes). */
  lockoutMs?: number;
  /** Where a lockout is reported (log line and audit entry). */
  events: Pick<SecurityEvents, 'totpLocked'>;
}

const DEFAULT_MAX_FAILED_CODES = 5;
const DEFAULT_LOCKOUT_MS = 5 * 60_000;
const CONCURRENT_RETRIES = 3;

/** What a code allows, run in the unit of work that accepts the code. */
type Allowed = (scope: AuditedScope<MfaRepository>) => Promise<void>;

const invalidCode = (message: string) => new ApiError('MFA_INVALID_TOKEN', { message, cause: { field: 'code', reason: message } });

export function createMfaService(deps: MfaServiceDeps): MfaService {
  const { mfa, clock } = deps;
  const maxFailedCodes = deps.maxFailedCodes ?? DEFAULT_MAX_FAILED_CODES;
  const lockoutMs = deps.lockoutMs ?? DEFAULT_LOCKOUT_MS;
  const self = (identity: Identity): Actor => ({ id: identity.id, name: identity.name });

  function statusOf(enrollment: MfaEnrollment, name: string): MfaStatus {
    const base = { id: enrollment.id, identityId: enrollment.identityId, isVerified: enrollment.isVerified, createdAt: enrollment.createdAt, updatedAt: enrollment.updatedAt };
    if (enrollment.isVerified) return base;
    return { ...base, provisioningUrl: provisioningUrl(name, deps.issuer, enrollment.secret), recoveryCodes: enrollment.recoveryCodes };
  }

  async function existing(identity: Identity): Promise<MfaEnrollment> {
    const enrollment = await mfa.findByIdentity(identity.id);
    if (!enrollment) throw new ApiError('NOT_FOUND', { message: `identity ${identity.id} has no MFA enrollment` });
    return enrollment;
  }

  async function verified(identity: Identity): Promise<MfaEnrollment> {
    const enrollment = await existing(identity);
    if (!enrollment.isVerified) throw new ApiError('NOT_FOUND', { message: 'the MFA enrollment is not verified yet; complete it with POST current-identity/mfa/verify' });
    return enrollment;
  }

  function lockedError(until: Date, now: Date): ApiError {
    return new ApiError('MFA_LOCKED', {
      message: `too many invalid codes; MFA is locked until ${until.toISOString()}`,
      retryAfterSeconds: Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000)),
    });
  }

  /** A wrong code: at the limit the enrollment locks; the answer says how many attempts are left. */
  async function wrongCode(enrollment: MfaEnrollment, attempts: number, now: Date): Promise<never> {
    if (attempts >= maxFailedCodes) {
      const until = new Date(now.getTime() + lockoutMs);
      await mfa.lock(enrollment.id, until);
      const identity = await deps.identities.findById(enrollment.identityId);
      await deps.events.totpLocked({ identity: { id: enrollment.identityId, name: identity?.name ?? '' }, until });
      throw invalidCode(`the code is not valid; MFA is locked for ${formatDuration(lockoutMs)}`);
    }
    const left = maxFailedCodes - attempts;
    throw invalidCode(`the code is not valid (${left} more failed ${left === 1 ? 'attempt locks' : 'attempts lock'} MFA for ${formatDuration(lockoutMs)})`);
  }

  /**
   * Accepts a code by `write`; with `allowed`, runs what the code allows after it in one unit of work (nothing of
   * either is written when `allowed` fails). Without, the one statement needs no transaction (a login's factor).
   */
  function accept(write: (records: MfaRepository) => Promise<boolean>, allowed?: Allowed): Promise<boolean> {
    if (!allowed) return write(mfa);
    return deps.changes(async (scope) => {
      if (!(await write(scope.records))) return false;
      await allowed(scope);
      return true;
    });
  }

  /** Consumes one recovery code (then runs `allowed`); false when it is not among the unused ones. */
  async function useRecoveryCode(enrollment: MfaEnrollment, code: string, now: Date, allowed?: Allowed): Promise<boolean> {
    let current: MfaEnrollment | undefined = enrollment;
    for (let attempt = 0; attempt < CONCURRENT_RETRIES && current; attempt++) {
      // Every stored code is compared, so the time taken does not tell which (or whether one) matched.
      let match = -1;
      current.recoveryCodes.forEach((stored, index) => {
        if (secretsEqual(stored, code) && match < 0) match = index;
      });
      if (match < 0) return false;
      const rest = current.recoveryCodes.filter((_, index) => index !== match);
      const { id, revision } = current;
      if (await accept((records) => records.replaceRecoveryCodes(id, revision, rest, now), allowed)) return true;
      // Another request changed the codes first (perhaps using this very code): look again.
      current = await mfa.findByIdentity(current.identityId);
    }
    return false;
  }

  /**
   * Checks `typed` against `enrollment`: refuses while locked, refuses malformed codes without counting them,
   * counts wrong ones, refuses a TOTP code whose step (or a later one) was already used. `allowed` is what an
   * accepted code allows, committed with its acceptance.
   */
  async function check(enrollment: MfaEnrollment, typed: string | undefined, accepts: { recovery: boolean; verify?: boolean }, allowed?: Allowed): Promise<CodeKind> {
    const now = clock.now();
    const code = classifyCode(typed ?? '');
    if (code.kind === 'malformed') {
      throw invalidCode(accepts.recovery ? 'code must be the 6 digits shown by the authenticator app, or a 6-character recovery code' : 'code must be the 6 digits shown by the authenticator app');
    }
    if (code.kind === 'recovery' && !accepts.recovery) throw invalidCode('a recovery code is not accepted here; enter the 6 digits shown by the authenticator app');
    // The attempt is counted before the code is looked at, atomically: concurrent guesses share one budget.
    const attempts = await mfa.countAttempt(enrollment.id, now);
    if (attempts === undefined) throw lockedError((await mfa.findByIdentity(enrollment.identityId))?.lockedUntil ?? now, now);
    if (attempts > maxFailedCodes) {
      await mfa.lock(enrollment.id, new Date(now.getTime() + lockoutMs));
      throw lockedError(new Date(now.getTime() + lockoutMs), now);
    }
    if (code.kind === 'recovery') {
      if (await useRecoveryCode(enrollment, code.code, now, allowed)) return 'recovery';
      return wrongCode(enrollment, attempts, now);
    }
    const step = matchingStep(enrollment.secret, code.code, now);
    if (step === null) return wrongCode(enrollment, attempts, now);
    if (!(await accept((records) => records.acceptStep(enrollment.id, step, now, { verify: accepts.verify === true }), allowed))) {
      const current = await mfa.findByIdentity(enrollment.identityId);
      if (current?.lockedUntil && current.lockedUntil.getTime() > now.getTime()) throw lockedError(current.lockedUntil, now);
      await mfa.forgiveAttempt(enrollment.id);
      throw invalidCode('this code has already been used; wait for the authenticator app to show the next one');
    }
    return 'totp';
  }

  return {
    async start(identity) {
      const now = clock.now();
      const enrollment: MfaEnrollment = {
        id: newEntityId(),
        identityId: identity.id,
        isVerified: false,
        secret: newTotpSecret(),
        recoveryCodes: newRecoveryCodes(),
        lastUsedStep: null,
        failedAttempts: 0,
        lockedUntil: null,
        revision: 0,
        createdAt: now,
        updatedAt: now,
      };
      if (await mfa.findByIdentity(identity.id)) throw new ApiError('MFA_EXISTS');
      await deps.changes(async ({ records, audit }) => {
        try {
          await records.insert(enrollment);
        } catch (error) {
          // Two starts racing: the loser sees the unique identity_id.
          if (uniqueViolationError(error)) throw new ApiError('MFA_EXISTS');
          throw error;
        }
        await audit.record(self(identity), 'start', 'mfa', enrollment.id, { identityId: identity.id });
      });
      return statusOf(enrollment, identity.name);
    },

    async status(identity) {
      return statusOf(await existing(identity), identity.name);
    },

    async qrCode(identity) {
      const enrollment = await mfa.findByIdentity(identity.id);
      if (!enrollment || enrollment.isVerified) {
        throw new ApiError('NOT_FOUND', { message: enrollment ? 'the MFA enrollment is complete; its QR code is no longer shown' : 'MFA enrollment has not been started' });
      }
      const url = provisioningUrl(identity.name, deps.issuer, enrollment.secret);
      // Loaded when a QR code is drawn, not by every process that loads the controller (see pages/render.ts).
      const { default: QRCode } = await import('qrcode');
      return QRCode.toBuffer(url, { type: 'png', width: 256, errorCorrectionLevel: 'M', margin: 2 });
    },

    async verify(identity, code) {
      const enrollment = await mfa.findByIdentity(identity.id);
      if (!enrollment || enrollment.isVerified) {
        throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', {
          message: enrollment ? 'the MFA enrollment is already verified' : 'MFA enrollment has not been started; start it with POST current-identity/mfa',
        });
      }
      await check(enrollment, code, { recovery: false, verify: true }, ({ audit }) => audit.record(self(identity), 'verify', 'mfa', enrollment.id, { identityId: identity.id }));
    },

    async remove(identity, code) {
      const enrollment = await existing(identity);
      const removal: Allowed = async ({ records, audit }) => {
        await records.delete(enrollment.id);
        await audit.record(self(identity), 'delete', 'mfa', enrollment.id, { identityId: identity.id });
      };
      if (enrollment.isVerified) {
        if (!code) throw invalidCode('the mfa-validation-code header must carry a current TOTP code or a recovery code');
        await check(enrollment, code, { recovery: true }, removal);
      } else {
        // A pending enrollment never protected anything: no code is needed (spec: the header is then empty).
        await deps.changes(removal);
      }
    },

    async recoveryCodes(identity, code) {
      const enrollment = await verified(identity);
      await check(enrollment, code, { recovery: false });
      const fresh = (await mfa.findByIdentity(identity.id)) ?? enrollment;
      return { ...statusOf(fresh, identity.name), recoveryCodes: fresh.recoveryCodes };
    },

    async regenerateRecoveryCodes(identity, code) {
      const enrollment = await verified(identity);
      const codes = newRecoveryCodes();
      // In the unit of work that accepts the code: the codes are read after its acceptance (a recovery code spent).
      await check(enrollment, code, { recovery: true }, async ({ records, audit }) => {
        for (let attempt = 0; attempt < CONCURRENT_RETRIES; attempt++) {
          const current = await records.findByIdentity(identity.id);
          if (!current) throw new ApiError('NOT_FOUND', { message: `identity ${identity.id} has no MFA enrollment` });
          if (await records.replaceRecoveryCodes(current.id, current.revision, codes, clock.now())) {
            await audit.record(self(identity), 'regenerate-recovery-codes', 'mfa', current.id, { identityId: identity.id });
            return;
          }
        }
        throw new ApiError('MFA_INVALID_TOKEN', { message: 'the recovery codes changed while regenerating; try again' });
      });
      return codes;
    },

    async answer(identity, code, options = {}) {
      const enrollment = await mfa.findByIdentity(identity.id);
      if (enrollment?.isVerified) return check(enrollment, code, { recovery: true });
      if (enrollment && options.completePending) {
        return check(enrollment, code, { recovery: false, verify: true }, ({ audit }) => audit.record(self(identity), 'verify', 'mfa', enrollment.id, { identityId: identity.id }));
      }
      throw new ApiError('MFA_NOT_ENROLLED', {
        message: enrollment
          ? 'the MFA enrollment is not verified yet; verify it with a code first'
          : 'the identity has no MFA enrollment; start one (POST current-identity/mfa, or /oidc/login/totp/enroll during an OIDC login)',
      });
    },

    async removeByAdmin(identityId, actor) {
      if (!(await deps.identities.findById(identityId))) throw new ApiError('NOT_FOUND', { message: `identity ${identityId} does not exist` });
      const enrollment = await mfa.findByIdentity(identityId);
      if (!enrollment) throw new ApiError('NOT_FOUND', { message: `identity ${identityId} has no MFA enrollment` });
      await deps.changes(async ({ records, audit }) => {
        await records.delete(enrollment.id);
        await audit.record(actor, 'delete', 'mfa', enrollment.id, { identityId });
      });
    },

    hasVerified: (identityId) => mfa.isVerified(identityId),
  };
}

