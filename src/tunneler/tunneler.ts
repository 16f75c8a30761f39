/**
 * The client tunneler (docs/decisions/0072): with an SDK context, it lists the services its identity may dial that
 * have an intercept.v1 config (asking the client API for that config type), listens locally for each intercept
 * (intercept-plan.ts says where), and relays each connection or UDP flow over a dial of the service with the AppData
 * the public tunnelers send. It follows changes as they do: it polls `service-updates` every `pollMs` and, when
 * `lastChangeAt` moves, lists again, opening listeners for new intercepts and closing those gone (their open
 * connections with them). A listener that could not be opened is tried again at the next listing. Every time what is
 * intercepted changes, `onChange` gets the whole view. No process, argv or printing here: the CLI does that.
 */
import type { SdkService, SvcConnection } from '../sdk/index.js';
import { appDataFor, type Peer } from './app-data.js';
import { hostPort, INTERCEPT_V1, listenerKey, planIntercepts, type Intercept, type PlanOptions } from './intercept-plan.js';
import { listenTcp, type InterceptListener } from './tcp-intercept.js';
import { listenUdp } from './udp-intercept.js';

/** The part of an SDK context the tunneler uses. */
export interface TunnelerSdk {
  readonly identity: { id: string; name: string };
  services(options: { configTypes: string[] }): Promise<SdkService[]>;
  servicesChangedAt(): Promise<string>;
  dial(service: string, options: { timeoutMs?: number; appData?: Buffer }): Promise<SvcConnection>;
}

export interface TunnelerOptions extends PlanOptions {
  /** How often `service-updates` is asked (the public tunnelers: 10 s). */
  pollMs: number;
  /** How long a UDP flow lives without a datagram. */
  udpIdleMs?: number;
  /** The whole view after the first listing and after every change of it. */
  onChange(view: TunnelView): void;
  /** One line for an event a person should see: a failed dial, a failed listing. */
  report(line: string): void;
}

/** One row of the table: what is intercepted and where it is listened on. */
export interface InterceptRow {
  service: string;
  protocol: string;
  intercept: string;
  listen: string;
  state: string;
}

export interface TunnelView {
  rows: InterceptRow[];
  /** Sentences about what is not intercepted at all (malformed configs, capped ports, no dialable service). */
  notes: string[];
}

export interface Tunneler {
  /** The latest view. */
  readonly view: TunnelView;
  /** Lists the services again now (what a moved `lastChangeAt` does). */
  refresh(): Promise<void>;
  /** Stops polling and closes every listener and connection. */
  close(): Promise<void>;
}

/** A listener's identity: everything that, when it changes, needs a new listener. */
const fingerprint = (i: Intercept): string => JSON.stringify([listenerKey(i), i.serviceId, i.serviceName, i.address.text, i.port, i.dialTimeoutMs, i.sourceIp]);

/** Why a listen failed, in words short enough for a table cell: the error code and what it usually means here. */
function listenFailure(error: NodeJS.ErrnoException, intercept: Intercept): string {
  if (error.code === 'EADDRINUSE') return 'cannot listen: in use (EADDRINUSE)';
  if (error.code === 'EACCES') return intercept.listenPort < 1024 ? 'cannot listen: below 1024 needs root (EACCES)' : 'cannot listen: not permitted (EACCES)';
  if (error.code === 'EADDRNOTAVAIL') return 'cannot listen: not a local address';
  return `cannot listen: ${error.code ?? error.message}`;
}

function rowOf(intercept: Intercept, state: string): InterceptRow {
  return {
    service: intercept.serviceName,
    protocol: intercept.protocol,
    intercept: hostPort(intercept.address.text, intercept.port),
    listen: hostPort(intercept.listenHost, intercept.listenPort),
    state,
  };
}

/** Starts the tunneler: the first listing is done (and `onChange` called) when this resolves. */
export async function startTunneler(sdk: TunnelerSdk, options: TunnelerOptions): Promise<Tunneler> {
  const active = new Map<string, { listener: InterceptListener; fingerprint: string }>();
  let view: TunnelView = { rows: [], notes: [] };
  let printed = '';
  let lastChangeAt: string | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  let pollFailing = false;

  const dial = async (intercept: Intercept, source: Peer): Promise<SvcConnection> =>
    sdk.dial(intercept.serviceName, { appData: appDataFor(intercept, source, sdk.identity.name), ...(intercept.dialTimeoutMs ? { timeoutMs: intercept.dialTimeoutMs } : {}) });
  const listenerDeps = { dial, report: options.report, ...(options.udpIdleMs !== undefined ? { idleMs: options.udpIdleMs } : {}) };

  async function sync(): Promise<void> {
    const services = await sdk.services({ configTypes: [INTERCEPT_V1] });
    // A listing that was under way when the tunneler closed opens nothing.
    if (closed) return;
    const dialable = services.filter((s) => s.permissions.includes('Dial') && s.configs[INTERCEPT_V1] !== undefined).map((s) => ({ id: s.id, name: s.name, config: s.configs[INTERCEPT_V1] }));
    const plan = planIntercepts(dialable, options);
    const wanted = new Map(plan.intercepts.filter((i) => !i.blocked).map((i) => [listenerKey(i), i]));
    // Gone or changed listeners close first: a changed one may want the same port again.
    for (const [key, entry] of [...active]) {
      const next = wanted.get(key);
      if (next && fingerprint(next) === entry.fingerprint) continue;
      active.delete(key);
      await entry.listener.close();
    }
    const states = new Map<string, string>();
    for (const [key, intercept] of wanted) {
      if (active.has(key)) continue;
      const listen = intercept.protocol === 'tcp' ? listenTcp : listenUdp;
      try {
        active.set(key, { listener: await listen(intercept, listenerDeps), fingerprint: fingerprint(intercept) });
      } catch (error) {
        states.set(key, listenFailure(error as NodeJS.ErrnoException, intercept));
      }
    }
    const rows = plan.intercepts.map((i) => {
      const state = i.blocked ?? states.get(listenerKey(i)) ?? 'listening';
      return rowOf(i, state === 'listening' && i.substituted ? 'listening (not interceptable without root)' : state);
    });
    const notes = [...plan.notes];
    if (dialable.length === 0) notes.push(`no service that identity '${sdk.identity.name}' may dial has an ${INTERCEPT_V1} config; following updates`);
    view = { rows, notes };
    const text = JSON.stringify(view);
    if (text !== printed) {
      printed = text;
      options.onChange(view);
    }
  }

  /** Runs one step after the previous one: listings never overlap. */
  const inTurn = (step: () => Promise<void>): Promise<void> => (queue = queue.then(step, step));

  async function poll(): Promise<void> {
    try {
      const at = await sdk.servicesChangedAt();
      pollFailing = false;
      if (at !== lastChangeAt && !closed) {
        await inTurn(sync);
        // Only a listing that worked catches up: a failed one is tried again at the next poll.
        lastChangeAt = at;
      }
    } catch (error) {
      // Said once per run of failures: a controller away for a minute is one line, not six.
      if (!pollFailing) options.report(`following service updates failed (will keep trying every ${options.pollMs / 1000} s): ${(error as Error).message}`);
      pollFailing = true;
    }
    // Not unref'd: with nothing intercepted yet, the poll is what keeps a tunneler process waiting for services.
    if (!closed) timer = setTimeout(() => void poll(), options.pollMs);
  }

  lastChangeAt = await sdk.servicesChangedAt();
  await inTurn(sync);
  timer = setTimeout(() => void poll(), options.pollMs);

  return {
    get view() {
      return view;
    },
    refresh: () => inTurn(sync),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await queue.catch(() => undefined);
      for (const entry of active.values()) await entry.listener.close();
      active.clear();
    },
  };
}
