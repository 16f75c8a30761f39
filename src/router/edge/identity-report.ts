/**
 * Tells the controller which identities hold SDK channels at this router (IdentityConnections, docs/control-protocol.md
 * section 6; issue 45): an identity's first channel opening and its last closing, gathered for a short while so that
 * a burst of channels costs one notice, and an identity that came and went meanwhile costs nothing. After every
 * (re)connect the whole set goes, the first message with `reset`, so a restarted controller, or another one, learns
 * it again. Nothing is queued while no controller is connected: the whole set after the reconnect says it all.
 */
import { ControlType } from '../../control-protocol/catalogue.js';
import type { IdentityConnections } from '../../control-protocol/bodies.js';

/** How long changes are gathered before they are sent. */
export const REPORT_DELAY_MS = 100;
/** Ids per message (the body's limit per list). */
export const IDS_PER_MESSAGE = 10_000;

export interface IdentityReporter {
  /** The identity's first channel here opened (its API session was checked). */
  opened(identityId: string): void;
  /** Its last channel here closed. */
  closed(identityId: string): void;
  /** A controller accepted the Hello: send it `current`, the identities holding channels here now, whole. */
  controllerConnected(current: Iterable<string>): void;
  stop(): void;
}

export function createIdentityReporter(deps: {
  control: { readonly connected: boolean; notify(contentType: number, body: IdentityConnections): boolean };
  delayMs?: number;
}): IdentityReporter {
  const delayMs = deps.delayMs ?? REPORT_DELAY_MS;
  // Per identity, its state to send: true connected, false disconnected. A flip back before the send cancels it.
  const pending = new Map<string, boolean>();
  // What the connected controller was last told, so a change back within the delay sends nothing.
  const told = new Set<string>();
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    timer = undefined;
    if (!deps.control.connected) {
      pending.clear();
      return;
    }
    const connected: string[] = [];
    const disconnected: string[] = [];
    for (const [id, up] of pending) {
      if (up === told.has(id)) continue;
      (up ? connected : disconnected).push(id);
      if (up) told.add(id);
      else told.delete(id);
    }
    pending.clear();
    if (connected.length > 0 || disconnected.length > 0) send(connected, disconnected, false);
  }

  /** The lists in messages of at most IDS_PER_MESSAGE ids each, `reset` on the first (which goes even when empty). */
  function send(connected: string[], disconnected: string[], reset: boolean): void {
    let i = 0;
    do {
      const body = { connected: connected.slice(i, i + IDS_PER_MESSAGE), disconnected: disconnected.slice(i, i + IDS_PER_MESSAGE) };
      deps.control.notify(ControlType.IdentityConnections, reset && i === 0 ? { reset: true, ...body } : body);
      i += IDS_PER_MESSAGE;
    } while (i < Math.max(connected.length, disconnected.length));
  }

  function change(identityId: string, up: boolean): void {
    pending.set(identityId, up);
    if (!timer) {
      timer = setTimeout(flush, delayMs);
      timer.unref();
    }
  }

  return {
    opened: (identityId) => change(identityId, true),
    closed: (identityId) => change(identityId, false),
    controllerConnected(current) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending.clear();
      told.clear();
      const all = [...current];
      for (const id of all) told.add(id);
      send(all, [], true);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending.clear();
    },
  };
}
