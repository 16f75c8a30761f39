/**
 * The services SDKs host through this router (facts §5B): a Bind is answered at once and its terminator created at
 * the controller afterwards (as the reference does); the terminator goes when the SDK unbinds, closes the binding or
 * its channel, and the router tells the SDK when the controller refuses or later deletes it (the SDK then binds
 * again). After a reconnect to a controller the router says which terminators it still hosts (ReconcileTerminators)
 * and creates those that could not be created meanwhile.
 */
import type { Logger } from 'pino';
import { EmptySchema, ReconcileAnswerSchema, TerminatorAnswerSchema } from '../../control-protocol/bodies.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import type { ControlClient } from '../control/control-client.js';
import { sendStateClosed, type EdgeBinding } from './sdk-channel.js';

const REQUEST_TIMEOUT_MS = 10_000;

export interface Hosting {
  /** A new binding (its Bind was answered): creates its terminator. */
  add(binding: EdgeBinding): void;
  /** The binding ends (Unbind, StateClosed, channel gone): its terminator is deleted. */
  remove(binding: EdgeBinding): void;
  /** The binding behind a terminator of this router. */
  byTerminator(terminatorId: string): EdgeBinding | undefined;
  /** The controller deleted this terminator: the SDK is told, so it binds again. */
  terminatorRevoked(terminatorId: string, reason: string): void;
  /**
   * After every (re)connect to a controller: the router's hosted terminators are the bindings' plus `alsoKeep` (the
   * tunnel's); the controller deletes the router's others.
   */
  reconcile(alsoKeep?: readonly string[]): Promise<void>;
  readonly count: number;
}

export function createHosting(deps: { control: Pick<ControlClient, 'request' | 'connected'>; log: Logger; onBind(outcome: 'success' | 'refused' | 'failed'): void }): Hosting {
  const { control, log } = deps;
  const bindings = new Set<EdgeBinding>();
  const byTerminator = new Map<string, EdgeBinding>();

  async function create(binding: EdgeBinding): Promise<void> {
    if (!control.connected || binding.closed) return;
    try {
      const answer = await control.request(
        ControlType.CreateTerminator,
        {
          serviceId: binding.serviceId,
          binding: 'edge',
          address: `sdk:${binding.channel.id}:${binding.connId}`,
          hostId: binding.channel.session.identityId,
          ...(binding.instanceId ? { instanceId: binding.instanceId } : {}),
          ...(binding.cost !== undefined ? { cost: binding.cost } : {}),
          ...(binding.precedence ? { precedence: binding.precedence } : {}),
        },
        TerminatorAnswerSchema,
        REQUEST_TIMEOUT_MS,
      );
      if (binding.closed) {
        // Unbound while the controller was creating it.
        await removeTerminators([answer.id]);
        return;
      }
      binding.terminatorId = answer.id;
      byTerminator.set(answer.id, binding);
      deps.onBind('success');
      log.info({ channel: binding.channel.id, service: binding.serviceId, terminator: answer.id }, `service ${binding.serviceId} is hosted by ${binding.channel.session.identityName || binding.channel.session.identityId} (terminator ${answer.id})`);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'NOT_ALLOWED' || code === 'NOT_FOUND' || code === 'BAD_MESSAGE') {
        deps.onBind('refused');
        log.info({ channel: binding.channel.id, service: binding.serviceId, code }, `bind refused by the controller: ${(error as Error).message}`);
        end(binding);
        if (!binding.channel.channel.closed) sendStateClosed(binding.channel, binding.connId, (error as Error).message);
        return;
      }
      // Controller away or busy: created at the next reconcile.
      deps.onBind('failed');
      log.warn({ channel: binding.channel.id, service: binding.serviceId, err: error }, `the terminator could not be created now: ${(error as Error).message}`);
    }
  }

  async function removeTerminators(ids: string[]): Promise<void> {
    if (ids.length === 0 || !control.connected) return;
    await control
      .request(ControlType.DeleteTerminators, { ids }, EmptySchema, REQUEST_TIMEOUT_MS)
      .catch((error) => log.debug({ err: error, ids }, 'terminators not deleted now; the next reconcile removes them'));
  }

  function end(binding: EdgeBinding): void {
    binding.closed = true;
    bindings.delete(binding);
    if (binding.channel.bindings.get(binding.connId) === binding) binding.channel.bindings.delete(binding.connId);
    if (binding.terminatorId) byTerminator.delete(binding.terminatorId);
  }

  return {
    add(binding) {
      bindings.add(binding);
      void create(binding);
    },
    remove(binding) {
      if (binding.closed) return;
      const id = binding.terminatorId;
      end(binding);
      if (id) void removeTerminators([id]);
    },
    byTerminator: (id) => byTerminator.get(id),
    terminatorRevoked(id, reason) {
      const binding = byTerminator.get(id);
      if (!binding) return;
      end(binding);
      if (!binding.channel.channel.closed) sendStateClosed(binding.channel, binding.connId, reason);
    },
    async reconcile(alsoKeep = []) {
      const keep = [...byTerminator.keys(), ...alsoKeep];
      try {
        const answer = await control.request(ControlType.ReconcileTerminators, { keep }, ReconcileAnswerSchema, REQUEST_TIMEOUT_MS);
        if (answer.removed > 0) log.info({ removed: answer.removed }, `${answer.removed} terminator(s) this router no longer hosts were removed at the controller`);
      } catch (error) {
        log.warn({ err: error }, `the router's terminators could not be reconciled: ${(error as Error).message}`);
      }
      for (const binding of [...bindings]) if (!binding.terminatorId) await create(binding);
    },
    get count() {
      return bindings.size;
    },
  };
}
