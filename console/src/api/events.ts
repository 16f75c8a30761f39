/**
 * The controller's live status (GET /events/status, server-sent events), read with fetch so that it carries the
 * Bearer token (EventSource cannot send headers). One stream per tab, opened while a screen listens and closed when
 * none does or the user signs out; a dropped stream comes back with a growing wait (1 s doubling to 30 s). Screens
 * use `useLiveStatus()` and lay its latest values over the rows they loaded: nothing polls.
 */
import { useEffect, useState } from 'preact/hooks';
import { MANAGEMENT } from './client';
import { currentTokens, onSessionChange, refresh } from './session';

export interface RouterStatus {
  id: string;
  name: string;
  isOnline: boolean;
  version: string;
}

export interface IdentityStatus {
  id: string;
  name: string;
  hasApiSession: boolean;
  hasEdgeRouterConnection: boolean;
}

export type StatusEvent = { type: 'router'; data: RouterStatus } | { type: 'identity'; data: IdentityStatus };

type Listener = (event: StatusEvent | { type: 'connected' | 'disconnected' }) => void;

const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 30_000;
const listeners = new Set<Listener>();
let running: AbortController | undefined;
let open = false;

const emit = (event: Parameters<Listener>[0]) => {
  if (event.type === 'connected' || event.type === 'disconnected') open = event.type === 'connected';
  for (const listener of listeners) listener(event);
};

/** One event of the stream's text (`event:` and `data:` lines; `:` lines are keep-alive comments). */
function parseEvent(block: string): StatusEvent | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if ((type !== 'router' && type !== 'identity') || data.length === 0) return undefined;
  try {
    return { type, data: JSON.parse(data.join('\n')) } as StatusEvent;
  } catch {
    return undefined;
  }
}

/** Reads one connection until it ends; true when it was accepted (so the next wait starts short again). */
async function readOnce(signal: AbortSignal): Promise<boolean> {
  const connect = () =>
    fetch(`${MANAGEMENT}/events/status`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${currentTokens()?.accessToken ?? ''}` }, signal });
  let response = await connect();
  if (response.status === 401 && (await refresh())) response = await connect();
  if (!response.ok || !response.body) return false;
  emit({ type: 'connected' });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      buffer = (buffer + value).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) emit(event);
      }
    }
  } finally {
    emit({ type: 'disconnected' });
  }
}

async function run(abort: AbortController): Promise<void> {
  let wait = FIRST_WAIT_MS;
  while (!abort.signal.aborted && currentTokens()) {
    const accepted = await readOnce(abort.signal).catch(() => false);
    if (abort.signal.aborted) return;
    wait = accepted ? FIRST_WAIT_MS : Math.min(wait * 2, LONGEST_WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function start(): void {
  if (running || !currentTokens()) return;
  const abort = new AbortController();
  running = abort;
  void run(abort).finally(() => {
    if (running === abort) running = undefined;
  });
}

function stop(): void {
  running?.abort();
  running = undefined;
}

// Signing out (or a session that could not be renewed) closes the stream; signing in again reopens it if wanted.
onSessionChange((tokens) => (tokens ? listeners.size > 0 && start() : stop()));

/** Listens to the status stream; the returned function stops listening (and closes the stream if nobody else does). */
export function subscribeStatus(listener: Listener): () => void {
  listeners.add(listener);
  // A screen that opens while the stream is already up is told so at once.
  if (open) listener({ type: 'connected' });
  start();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) stop();
  };
}

export interface LiveStatus {
  /** Whether the stream is open now. */
  connected: boolean;
  /**
   * How many times the stream opened again after dropping. Changes missed meanwhile are not replayed, so a screen
   * loads its rows again when this changes (pass it as ListScreen's reloadKey); the pushed values start afresh.
   */
  reconnects: number;
  routers: ReadonlyMap<string, RouterStatus>;
  identities: ReadonlyMap<string, IdentityStatus>;
}

/** The latest pushed status of routers and identities since the screen opened, keyed by id. */
export function useLiveStatus(): LiveStatus {
  const [live, setLive] = useState<LiveStatus>({ connected: false, reconnects: 0, routers: new Map(), identities: new Map() });
  useEffect(() => {
    let openedBefore = false;
    return subscribeStatus((event) => {
      if (event.type === 'connected') {
        const again = openedBefore;
        openedBefore = true;
        setLive((before) => (again ? { connected: true, reconnects: before.reconnects + 1, routers: new Map(), identities: new Map() } : { ...before, connected: true }));
        return;
      }
      setLive((before) => {
        if (event.type === 'router') return { ...before, routers: new Map(before.routers).set(event.data.id, event.data) };
        if (event.type === 'identity') return { ...before, identities: new Map(before.identities).set(event.data.id, event.data) };
        return { ...before, connected: false };
      });
    });
  }, []);
  return live;
}
