/**
 * SDK-bound terminators whose host lost Bind access (issue 42; docs/control-protocol.md "Revocations"): after a
 * change that may take access away (a policy, a service, an identity's attributes), the terminators SDKs bound are
 * checked again against the policy engine and those whose host may no longer bind are deleted. The delete is logged
 * in the change feed (terminators.ts), so every controller pushes a `terminator` revocation to its routers and the
 * hosting router ends the binding. Only the SDK-bound terminators are read, one access question per host and
 * service: the work is what the network hosts, never a scan over identities or policies.
 */
import type { Actor } from '../../domain/audit.js';
import { ApiError } from '../../errors/api-error.js';
import type { PolicyEngine } from '../authorization/engine.js';
import type { TerminatorService } from '../authorization/terminators.js';

/** Who deletes a terminator whose host lost access, in the audit log. */
export const LOST_ACCESS_ACTOR: Actor = { id: null, name: 'controller: Bind access lost' };

export interface HostedTerminatorCheck {
  /**
   * Checks the SDK-bound terminators of host `hostId` again (of every host when omitted); resolves with how many
   * were deleted. Calls made while a pass runs are folded into one more pass after it, so a burst of changes costs
   * at most two.
   */
  recheck(hostId?: string): Promise<number>;
}

export function createHostedTerminatorCheck(deps: {
  terminators: Pick<TerminatorService, 'listHosted' | 'delete'>;
  engine: Pick<PolicyEngine, 'access'>;
}): HostedTerminatorCheck {
  const { terminators, engine } = deps;
  let running: Promise<number> | undefined;
  let next: { all: boolean; hosts: Set<string>; done: Promise<number> } | undefined;

  /** Whether `hostId` may still bind `serviceId`; a host or service gone may not (a service's rows go with it anyway). */
  async function mayBind(hostId: string, serviceId: string): Promise<boolean> {
    try {
      return (await engine.access(hostId, serviceId, 'Bind')).allowed;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  async function pass(all: boolean, hosts: ReadonlySet<string>): Promise<number> {
    const hosted = all ? await terminators.listHosted() : (await Promise.all([...hosts].map((hostId) => terminators.listHosted({ hostId })))).flat();
    const verdicts = new Map<string, Promise<boolean>>();
    let deleted = 0;
    for (const terminator of hosted) {
      const host = terminator.hostId as string;
      const key = `${host}\u0000${terminator.serviceId}`;
      const verdict = verdicts.get(key) ?? mayBind(host, terminator.serviceId);
      verdicts.set(key, verdict);
      if (await verdict) continue;
      try {
        await terminators.delete(LOST_ACCESS_ACTOR, terminator.id);
        deleted++;
      } catch (error) {
        // Deleted meanwhile (its router, an administrator, another controller's pass): already announced.
        if (!(error instanceof ApiError && error.code === 'NOT_FOUND')) throw error;
      }
    }
    return deleted;
  }

  function start(all: boolean, hosts: ReadonlySet<string>): Promise<number> {
    running = pass(all, hosts).finally(() => (running = undefined));
    return running;
  }

  function recheck(hostId?: string): Promise<number> {
    if (!running) return start(hostId === undefined, new Set(hostId === undefined ? [] : [hostId]));
    if (!next) {
      const after = running.catch(() => 0);
      const queued: { all: boolean; hosts: Set<string>; done: Promise<number> } = { all: false, hosts: new Set(), done: Promise.resolve(0) };
      queued.done = after.then(() => {
        next = undefined;
        return start(queued.all, queued.hosts);
      });
      next = queued;
    }
    if (hostId === undefined) next.all = true;
    else next.hosts.add(hostId);
    return next.done;
  }

  return { recheck };
}
