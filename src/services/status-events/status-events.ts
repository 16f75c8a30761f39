/**
 * The controller's live status events (issue 45): what the console's live status stream (`GET /events/status`)
 * pushes. Router presence publishes here when a router's control channel comes up or goes down at this controller,
 * and the live status watch (live-status.ts) when a router or an identity changed at any controller; every open
 * stream is a subscriber. In memory and synchronous: a subscriber that cannot keep up is the stream's business (it
 * coalesces per router and identity), never the publisher's. A router's state published twice (here and from the
 * change feed) is passed on once.
 */
export interface RouterStatusEvent {
  kind: 'router';
  id: string;
  isOnline: boolean;
  /** The version the router reported in its hello; absent when it went offline. */
  version?: string;
  at: Date;
}

/** An identity's presence as the identity detail shows it (decision 0010), after it changed. */
export interface IdentityStatusEvent {
  kind: 'identity';
  id: string;
  /** Absent when the identity is gone (deleted: its sessions went with it). */
  name?: string;
  hasApiSession: boolean;
  hasEdgeRouterConnection: boolean;
  at: Date;
}

export type StatusEvent = RouterStatusEvent | IdentityStatusEvent;

export interface StatusEvents {
  publish(event: StatusEvent): void;
  /** Calls `listener` for every event from now on, and `ended` when the controller stops; returns the way to stop. */
  subscribe(listener: (event: StatusEvent) => void, ended?: () => void): () => void;
  /** The controller is stopping: every subscriber's `ended` is called and the subscriptions dropped. */
  close(): void;
  /** Open subscriptions (for the limit per identity, and tests). */
  readonly subscribers: number;
}

export function createStatusEvents(): StatusEvents {
  const listeners = new Map<(event: StatusEvent) => void, (() => void) | undefined>();
  // The last state told of each router (routers are few): the same state heard again is not told again.
  const routers = new Map<string, string>();
  return {
    publish(event) {
      if (event.kind === 'router') {
        const state = event.isOnline ? `online ${event.version ?? ''}` : 'offline';
        if (routers.get(event.id) === state) return;
        routers.set(event.id, state);
      }
      for (const listener of listeners.keys()) listener(event);
    },
    subscribe(listener, ended) {
      listeners.set(listener, ended);
      return () => void listeners.delete(listener);
    },
    close() {
      const ends = [...listeners.values()];
      listeners.clear();
      for (const ended of ends) ended?.();
    },
    get subscribers() {
      return listeners.size;
    },
  };
}
