/**
 * Enrollment administration (the EnrollmentService contract): creating, listing, refreshing and deleting the
 * pending one-time enrollments through which identities obtain credentials. Consuming them is enroll.ts.
 *
 * Rules an administrator meets (reference facts §9, §10):
 * - one pending enrollment per identity and method (409 ENROLLMENT_EXISTS);
 * - an identity holds at most one authenticator per method, so `ott` is refused (409 ENROLLMENT_EXISTS) while it
 *   has a certificate authenticator and `updb` while it has a password one: delete the authenticator first;
 * - `updb` needs a username that follows the username rules (policy/names.ts) and whose key no other password
 *   authenticator or pending enrollment holds: `Alice` is taken when `alice` is (docs/decisions/0016). The check
 *   before signing answers most requests; the claim written with the enrollment settles a race.
 * What differs by method (the authenticator it creates, whether it takes a username) comes from the method's
 * module in methods/ (decision 0018). Each change and its audit entry are one unit of work (decision 0020).
 */
import type { Enrollment } from '../../domain/enrollment.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams } from '../../persistence/query/list-query.js';
import { ENROLLMENT_FIELDS, type EnrollmentRepository } from '../../persistence/repositories/enrollments.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { usernameProblem } from '../../policy/names.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId, newUuid } from '../../shared/random.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { EnrollmentJwtSigner } from './enrollment-jwt.js';
import { enrollMethod } from './methods/index.js';
import type { CreateEnrollmentInput, EnrollmentService } from './enrollment-service.js';

export interface EnrollmentServiceDeps {
  enrollments: EnrollmentRepository;
  identities: IdentityRepository;
  /** A change of an enrollment (insert, new token, delete) and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<EnrollmentRepository, 'insert' | 'updateToken' | 'delete'>>;
  clock: Clock;
  /** Undefined when the controller has no `edge` section: enrollment is then unavailable. */
  jwt: EnrollmentJwtSigner | undefined;
  /** `edge.enrollment.edgeIdentity.duration`: the default lifetime of an enrollment. */
  edgeIdentityDurationMs: number;
  /** Third-party CAs, which `ottca` enrollments name; absent, no `ottca` enrollment can be created. */
  cas?: { findById(id: string): Promise<{ id: string } | undefined> };
  /** The tunneler-enabled router whose own identity this is: it authenticates with the router's certificate, never enrolls. */
  routerOwning?: (identityId: string) => Promise<{ id: string; name: string } | undefined>;
}

function invalidField(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });
}

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', { message: `No enrollment with id ${id}`, cause: { field: 'id', value: id } });
}

/**
 * Builds the enrollment service. Every mutation is recorded in the audit trail with its actor; tokens and JWTs
 * never are (they are secrets while the enrollment is pending).
 *
 * @example
 * const changes = auditedChanges(database, clock, createEnrollmentRepository);
 * const enrollments = createEnrollmentService({ enrollments: repo, identities, changes, clock, jwt, edgeIdentityDurationMs });
 * const pending = await enrollments.create(actor, { identityId, method: 'ott' }); // pending.jwt goes to the device
 */
export function createEnrollmentService(deps: EnrollmentServiceDeps): EnrollmentService {
  const { enrollments, identities, clock } = deps;

  function signer(): EnrollmentJwtSigner {
    if (!deps.jwt) throw new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
    return deps.jwt;
  }

  /** The requested expiry, or now + the configured duration; it must lie in the future. */
  function expiryOf(requested: Date | undefined, now: Date): Date {
    const expiresAt = requested ?? new Date(now.getTime() + deps.edgeIdentityDurationMs);
    if (Number.isNaN(expiresAt.getTime())) throw invalidField('expiresAt', 'is not a date-time');
    if (expiresAt.getTime() <= now.getTime()) throw invalidField('expiresAt', 'must be in the future', expiresAt.toISOString());
    return expiresAt;
  }

  const usernameInUse = (field: string, username: string) =>
    new ApiError('COULD_NOT_VALIDATE', {
      message: `The request is invalid: ${field} '${username}' is already in use (usernames are compared ignoring case and character width)`,
      cause: { field, reason: 'is already in use', value: username },
    });

  async function checkUsername(input: CreateEnrollmentInput): Promise<string | null> {
    const field = input.usernameField ?? 'username';
    if (!enrollMethod(input.method).takesUsername) {
      if (input.username !== undefined) throw invalidField(field, 'is only used by updb enrollments');
      return null;
    }
    const username = input.username;
    if (username === undefined) throw invalidField(field, 'is required for a updb enrollment');
    const problem = usernameProblem(username);
    if (problem) throw invalidField(field, problem, username);
    if (await enrollments.usernameInUse(username)) throw usernameInUse(field, username);
    return username;
  }

  /** The CA an `ottca` enrollment names (it must exist); null for the other methods, which take none. */
  async function checkCa(input: CreateEnrollmentInput): Promise<string | null> {
    if (!enrollMethod(input.method).takesCa) {
      if (input.caId !== undefined) throw invalidField('caId', 'is only used by ottca enrollments');
      return null;
    }
    if (input.caId === undefined) throw invalidField('caId', `is required for a ${input.method} enrollment`);
    const ca = await deps.cas?.findById(input.caId);
    if (!ca) throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', { message: `No CA with id ${input.caId}`, cause: { field: 'caId', value: input.caId } });
    return ca.id;
  }

  async function get(id: string): Promise<Enrollment> {
    const enrollment = await enrollments.findById(id);
    if (!enrollment) throw notFound(id);
    return enrollment;
  }

  return {
    async create(actor, input) {
      const jwt = signer();
      const now = clock.now();
      const expiresAt = expiryOf(input.expiresAt, now);
      const identity = await identities.findById(input.identityId);
      if (!identity) {
        throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', {
          message: `No identity with id ${input.identityId}`,
          cause: { field: 'identityId', value: input.identityId },
        });
      }
      const router = await deps.routerOwning?.(identity.id);
      if (router) throw invalidField('identityId', `is the identity of edge router '${router.name}', which authenticates with the router's certificate and is not enrolled on its own`, identity.id);
      const exists = (reason: string) => new ApiError('ENROLLMENT_EXISTS', { message: reason, cause: { field: 'method', value: input.method } });
      const pendingExists = () => exists(`The identity already has a pending ${input.method} enrollment; refresh or delete it instead`);
      if ((await enrollments.listForIdentity(identity.id)).some((e) => e.method === input.method)) throw pendingExists();
      const { authenticator } = enrollMethod(input.method);
      if (await enrollments.hasAuthenticator(identity.id, authenticator.method)) {
        const { kind } = authenticator;
        throw exists(`The identity already has a ${kind} authenticator; delete it before creating a ${input.method} enrollment`);
      }
      if (enrollMethod(input.method).administered === false) throw invalidField('method', `${input.method} enrollments are not created by administrators`, input.method);
      const username = await checkUsername(input);
      const caId = await checkCa(input);
      const token = newUuid();
      const enrollment: Enrollment = {
        id: newEntityId(),
        identityId: identity.id,
        method: input.method,
        token,
        username,
        caId,
        jwt: await jwt.sign({ method: input.method, identityId: identity.id, token, expiresAt }, now),
        expiresAt,
        createdAt: now,
        updatedAt: now,
      };
      await deps.changes(async ({ records, audit }) => {
        // Unique constraints settle races: (identity, method) for two administrators creating at the same moment, the
        // username claim for two enrollments (or an enrollment and a rename) wanting one username.
        const outcome = await records.insert(enrollment);
        if (outcome === 'exists') throw pendingExists();
        if (outcome === 'username-taken') throw usernameInUse(input.usernameField ?? 'username', username ?? '');
        await audit.record(actor, 'create', 'enrollment', enrollment.id, {
          identityId: identity.id,
          method: input.method,
          expiresAt: expiresAt.toISOString(),
          ...(username === null ? {} : { username }),
          ...(caId === null ? {} : { caId }),
        });
      });
      return enrollment;
    },

    pendingForIdentity: (identityId) => enrollments.listForIdentity(identityId),
    pendingForIdentities: (identityIds) => enrollments.listForIdentities(identityIds),

    async list(params) {
      const query = parseListParams(params, ENROLLMENT_FIELDS, { field: 'createdAt', direction: 'asc' });
      const { items, totalCount } = await enrollments.list(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(ENROLLMENT_FIELDS) };
    },

    get,

    async delete(actor, id) {
      const enrollment = await get(id);
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.delete(id))) throw notFound(id);
        await audit.record(actor, 'delete', 'enrollment', id, { identityId: enrollment.identityId, method: enrollment.method });
      });
    },

    async refresh(actor, id, requestedExpiry) {
      const jwt = signer();
      const enrollment = await get(id);
      const now = clock.now();
      const expiresAt = expiryOf(requestedExpiry, now);
      // A new token, so a JWT that leaked while the old window was open is worthless afterwards.
      const token = newUuid();
      const signed = await jwt.sign({ method: enrollment.method, identityId: enrollment.identityId, token, expiresAt }, now);
      await deps.changes(async ({ records, audit }) => {
        if (!(await records.updateToken(id, { token, jwt: signed, expiresAt, updatedAt: now }))) throw notFound(id);
        await audit.record(actor, 'refresh', 'enrollment', id, { identityId: enrollment.identityId, method: enrollment.method, expiresAt: expiresAt.toISOString() });
      });
      return { ...enrollment, token, jwt: signed, expiresAt, updatedAt: now };
    },
  };
}
