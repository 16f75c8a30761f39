/**
 * Turns the change feed (decision 0035) into what routers must be told (decision 0062): API sessions that ended,
 * identities disabled or deleted, access that may have been lost, routers whose standing changed, trust material that
 * changed. The feed tells this controller's own commits at commit and other controllers' within its bound (1 s), so
 * a revocation reaches a connected router within that bound plus one store read.
 *
 * The feed says only which entity changed; whether the change ends something is read from the store here, one read
 * per changed session or identity, in the order the changes were told.
 */
import type { Revocation } from '../../control-protocol/bodies.js';
import type { ChangedEntity } from '../../persistence/repositories/authorization-changes.js';
import type { Clock } from '../../shared/clock.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';

/** Changes after which a dial may no longer be allowed: routers decide again at the next dial. */
const ACCESS_ENTITIES: ReadonlySet<ChangedEntity> = new Set(['service', 'service-policy', 'edge-router-policy', 'service-edge-router-policy', 'posture-check', 'config']);

export interface RevocationSources {
  /** Whether a legacy API session with this id still exists. */
  apiSessionLive(id: string): Promise<boolean>;
  /** Whether an OIDC session with this id exists and is not revoked. */
  oidcSessionLive(id: string): Promise<boolean>;
  /** An identity's state: gone, disabled (now), or active. */
  identityState(id: string): Promise<'deleted' | 'disabled' | 'active'>;
}

export interface RevocationListener {
  revocations(items: Revocation[]): void;
  /** A router's row changed (deleted, disabled, re-enrolled, renewed): check its standing. `*`: every router. */
  routerChanged(routerId: string): void;
  /** The CAs or signing keys may have changed: send routers the trust state again. */
  trustChanged(): void;
  /**
   * Policies or services changed (no `hostId`: every host), or one identity's attributes did: hosts of SDK-bound
   * terminators may have lost Bind access (hosted-terminators.ts checks them again).
   */
  hostsMayHaveLostAccess(hostId?: string): void;
}

/** Starts watching; returns the way to stop. Reads run one batch at a time, so the order of the feed is kept. */
export function watchRevocations(deps: { feed: ChangeFeed; sources: RevocationSources; clock: Clock; listener: RevocationListener; onError(error: unknown): void }): () => void {
  const { sources, listener } = deps;
  let queue: Promise<void> = Promise.resolve();

  async function classify(changes: ReadonlyArray<{ entityType: ChangedEntity; entityId: string }>): Promise<void> {
    const committedAt = deps.clock.now().getTime();
    const items: Revocation[] = [];
    let access = false;
    let trust = false;
    const hosts = new Set<string>();
    const seen = new Set<string>();
    for (const { entityType, entityId } of changes) {
      const key = `${entityType}/${entityId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (entityType === '*') {
        listener.routerChanged('*');
        access = true;
        trust = true;
      } else if (entityType === 'api-session') {
        if (!(await sources.apiSessionLive(entityId))) items.push({ kind: 'api-session', id: entityId, reason: 'the API session ended', committedAt });
      } else if (entityType === 'oidc-session') {
        if (!(await sources.oidcSessionLive(entityId))) items.push({ kind: 'api-session', id: entityId, reason: 'the API session was revoked', committedAt });
      } else if (entityType === 'identity') {
        const state = await sources.identityState(entityId);
        if (state !== 'active') items.push({ kind: 'identity', id: entityId, reason: `the identity was ${state}`, committedAt });
        // Its attributes may have changed: a host it is may no longer bind (a disabled or deleted one ends by `identity`).
        else hosts.add(entityId);
      } else if (entityType === 'terminator') {
        // Logged only when someone other than its router deleted an SDK-bound terminator (terminators.ts).
        items.push({ kind: 'terminator', id: entityId, reason: 'the terminator was deleted: an administrator removed it or its host lost Bind access', committedAt });
      } else if (entityType === 'edge-router') {
        listener.routerChanged(entityId);
      } else if (entityType === 'ca' || entityType === 'external-jwt-signer') {
        trust = true;
      } else if (ACCESS_ENTITIES.has(entityType)) {
        access = true;
      }
    }
    if (access) items.push({ kind: 'access', id: '*', reason: 'policies, services or posture checks changed', committedAt });
    if (items.length > 0) listener.revocations(items);
    if (trust) listener.trustChanged();
    if (access) listener.hostsMayHaveLostAccess();
    else for (const hostId of hosts) listener.hostsMayHaveLostAccess(hostId);
  }

  const stop = deps.feed.subscribe((event) => {
    const changes = event.kind === 'reset' ? [{ entityType: '*' as const, entityId: '*' }] : event.changes;
    queue = queue.then(() => classify(changes)).catch(deps.onError);
  });
  return stop;
}
