/**
 * Terminators as administrators manage them (`/edge/management/v1/terminators`, `/services/{id}/terminators`).
 * Written by hand rather than on the resource kit's service: the kit's rules are about names and terminators have
 * none. The same guarantees hold: 404 naming an unknown id, each change committed with its audit entry in one unit
 * of work (decision 0020). The service and router must exist (400 REFERENCED_ENTITY_NOT_FOUND naming the field).
 */
import type { Actor } from '../../domain/audit.js';
import type { NamedTerminator, Terminator, TerminatorPrecedence } from '../../domain/terminator.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { TERMINATOR_FIELDS, type TerminatorRepository } from '../../persistence/repositories/terminators.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { ListPage } from '../list-page.js';
import { relatedPage } from './related-list.js';

/** The largest terminator cost (an unsigned 16-bit value). */
const MAX_COST = 65_535;

/** A whole terminator (create); `identity` and `identitySecret` are set only here, as in the reference. */
export interface TerminatorInput {
  service: string;
  router: string;
  binding: string;
  address: string;
  identity?: string;
  identitySecret?: string;
  /** The identity hosting it, when a router creates it for an SDK's Bind (never from the management API). */
  hostId?: string;
  cost?: number;
  precedence?: TerminatorPrecedence;
  tags?: Terminator['tags'];
}

/** PUT: the whole terminator but its instance identity, which stays. */
export type TerminatorUpdate = Omit<TerminatorInput, 'identity' | 'identitySecret' | 'hostId'>;
/** PATCH: any subset of PUT's fields. */
export type TerminatorPatch = Partial<TerminatorUpdate>;

export interface TerminatorService {
  list(params: RawListParams): Promise<ListPage<NamedTerminator>>;
  /** The terminators of one service; 404 NOT_FOUND when no service has the id. */
  listOfService(serviceId: string, params: RawListParams): Promise<ListPage<NamedTerminator>>;
  get(id: string): Promise<NamedTerminator>;
  create(actor: Actor, input: TerminatorInput): Promise<Terminator>;
  replace(actor: Actor, id: string, input: TerminatorUpdate): Promise<Terminator>;
  patch(actor: Actor, id: string, patch: TerminatorPatch): Promise<Terminator>;
  /**
   * Deletes a terminator. An SDK-bound one is announced to routers (a `terminator` revocation through the change
   * feed) unless `byItsRouter`: the router that hosts it deleted it and knows.
   */
  delete(actor: Actor, id: string, options?: { byItsRouter?: boolean }): Promise<void>;
  /** The terminators SDKs bound (host set), all or those of one router or host. */
  listHosted(of?: { routerId?: string; hostId?: string }): Promise<Terminator[]>;
  /** The terminators of a service on one router. */
  listOnRouter(serviceId: string, routerId: string): Promise<Terminator[]>;
  /** Every terminator of a service, on any router (a dial chooses among them). */
  listForService(serviceId: string): Promise<Terminator[]>;
}

function invalid(field: string, reason: string, value: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });
}

/** The settings of an audit entry; never the instance secret. */
const auditDetails = (t: Terminator) => ({
  service: t.serviceId,
  router: t.routerId,
  binding: t.binding,
  address: t.address,
  identity: t.identity,
  cost: t.cost,
  precedence: t.precedence,
});

export function createTerminatorService(deps: {
  terminators: TerminatorRepository;
  changes: AuditedChanges<Pick<TerminatorRepository, 'insert' | 'update' | 'delete' | 'announceRemoval'>>;
  clock: Clock;
}): TerminatorService {
  const { terminators, clock } = deps;
  const filterableFields = Object.keys(TERMINATOR_FIELDS);

  async function found(id: string): Promise<NamedTerminator> {
    const terminator = await terminators.findById(id);
    if (!terminator) throw new ApiError('NOT_FOUND', { message: `No terminator has the id '${id}'`, cause: { field: 'id', value: id } });
    return terminator;
  }

  /** The field rules, then the references (400 REFERENCED_ENTITY_NOT_FOUND naming `service` or `router`). */
  async function check(t: Terminator): Promise<void> {
    if (t.binding.trim() === '') throw invalid('binding', 'must not be empty', t.binding);
    if (t.address.trim() === '') throw invalid('address', 'must not be empty', t.address);
    if (!Number.isInteger(t.cost) || t.cost < 0 || t.cost > MAX_COST) throw invalid('cost', `must be an integer from 0 to ${MAX_COST}`, t.cost);
    const missing = (field: string, what: string, value: string) =>
      new ApiError('REFERENCED_ENTITY_NOT_FOUND', { message: `No ${what} has the id '${value}'`, cause: { field, reason: 'does not exist', value } });
    if (!(await terminators.serviceExists(t.serviceId))) throw missing('service', 'service', t.serviceId);
    if (!(await terminators.routerExists(t.routerId))) throw missing('router', 'edge router', t.routerId);
  }


  async function change(actor: Actor, current: Terminator, update: TerminatorUpdate, action: 'update' | 'patch'): Promise<Terminator> {
    const next: Terminator = {
      ...current,
      serviceId: update.service,
      routerId: update.router,
      binding: update.binding,
      address: update.address,
      cost: update.cost ?? 0,
      precedence: update.precedence ?? 'default',
      tags: update.tags ?? {},
      updatedAt: clock.now(),
    };
    await check(next);
    await deps.changes(async (scope) => {
      await scope.records.update(next);
      await scope.audit.record(actor, action, 'terminator', next.id, auditDetails(next));
    });
    return next;
  }

  return {
    async list(params) {
      const query = parseListParams(params, TERMINATOR_FIELDS);
      const { items, totalCount } = await terminators.list(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    async listOfService(serviceId, params) {
      if (!(await terminators.serviceExists(serviceId))) {
        throw new ApiError('NOT_FOUND', { message: `No service has the id '${serviceId}'`, cause: { field: 'id', value: serviceId } });
      }
      return relatedPage(params, TERMINATOR_FIELDS, { kind: 'compare', field: 'serviceId', operator: '=', value: serviceId }, (query) => terminators.list(query));
    },
    get: found,
    async create(actor, input) {
      const now = clock.now();
      const terminator: Terminator = {
        id: newEntityId(),
        serviceId: input.service,
        routerId: input.router,
        binding: input.binding,
        address: input.address,
        identity: input.identity ?? '',
        identitySecret: input.identitySecret ?? null,
        cost: input.cost ?? 0,
        precedence: input.precedence ?? 'default',
        hostId: input.hostId ?? null,
        tags: input.tags ?? {},
        createdAt: now,
        updatedAt: now,
      };
      await check(terminator);
      await deps.changes(async (scope) => {
        await scope.records.insert(terminator);
        await scope.audit.record(actor, 'create', 'terminator', terminator.id, auditDetails(terminator));
      });
      return terminator;
    },
    async replace(actor, id, input) {
      return change(actor, await found(id), input, 'update');
    },
    async patch(actor, id, patch) {
      const current = await found(id);
      const merged: TerminatorUpdate = {
        service: patch.service ?? current.serviceId,
        router: patch.router ?? current.routerId,
        binding: patch.binding ?? current.binding,
        address: patch.address ?? current.address,
        cost: patch.cost ?? current.cost,
        precedence: patch.precedence ?? current.precedence,
        tags: patch.tags ?? current.tags,
      };
      return change(actor, current, merged, 'patch');
    },
    async delete(actor, id, options = {}) {
      const terminator = await found(id);
      await deps.changes(async (scope) => {
        const removed = await scope.records.delete(id);
        // Only the controller whose delete removed the row announces it, so a race between two announces once.
        if (removed && terminator.hostId !== null && !options.byItsRouter) await scope.records.announceRemoval(id);
        await scope.audit.record(actor, 'delete', 'terminator', id, { service: terminator.serviceId, router: terminator.routerId });
      });
    },
    listHosted: (of) => terminators.listHosted(of),
    listOnRouter: (serviceId, routerId) => terminators.listOnRouter(serviceId, routerId),
    listForService: (serviceId) => terminators.listForService(serviceId),
  };
}
