/**
 * `svc tunnel --identity FILE`: the client tunneler (src/tunneler/, docs/tunnel.md). It logs the identity in with the
 * SDK, listens locally for every intercept of the services it may dial, and prints what it intercepts as a table at
 * start and after every change (`--json`: one JSON line per change instead). Failed dials and failed polls are one
 * line each on stderr. Runs until SIGINT or SIGTERM, then closes its listeners and connections and exits 0. A bad
 * option or an unreadable identity file exits 2; a refused login exits 1.
 */
import { isIP } from 'node:net';
import { startTunneler, type TunnelView } from '../tunneler/tunneler.js';
import { tableLines } from './edge/table.js';
import { usageError } from './cli-error.js';
import type { Output } from './output.js';
import { cliErrorOf, openContext } from './sdk-commands.js';
import { watchForStop } from './stop-signals.js';

export interface TunnelCommandArgs {
  identity: string;
  auth: 'auto' | 'oidc' | 'legacy';
  bind: string;
  portOffset: string;
  refresh: string;
  json: boolean;
}

/** The most ports one service may open: a range such as 1-65535 must not open a process's worth of sockets. */
export const MAX_PORTS_PER_SERVICE = 64;

const COLUMNS = ['service', 'protocol', 'intercept', 'listen', 'state'];

function options(args: TunnelCommandArgs): { bindHost: string; portOffset: number; pollMs: number } {
  if (isIP(args.bind) === 0) throw usageError(`--bind: '${args.bind}' is not an IP address (such as 127.0.0.1 or ::1)`);
  if (!/^-?\d{1,5}$/.test(args.portOffset) || Math.abs(Number(args.portOffset)) > 65535) throw usageError(`--port-offset: '${args.portOffset}' is not a whole number from -65535 to 65535`);
  const seconds = Number(args.refresh);
  if (!/^\d+(\.\d+)?$/.test(args.refresh) || seconds <= 0 || seconds > 3600) throw usageError(`--refresh: '${args.refresh}' is not a number of seconds above 0 and at most 3600`);
  return { bindHost: args.bind, portOffset: Number(args.portOffset), pollMs: Math.round(seconds * 1000) };
}

function printView(view: TunnelView, identity: string, json: boolean, out: Output): void {
  if (json) {
    out.print(JSON.stringify({ identity, intercepts: view.rows, notes: view.notes }));
    return;
  }
  const count = view.rows.length;
  out.print(`identity '${identity}': ${count === 0 ? 'nothing to intercept' : `${count} intercept${count === 1 ? '' : 's'}`}`);
  if (view.rows.length > 0) for (const line of tableLines(COLUMNS, view.rows as unknown as Record<string, unknown>[])) out.print(line);
  for (const note of view.notes) out.print(`note: ${note}`);
}

export async function tunnelCommand(args: TunnelCommandArgs, out: Output): Promise<number> {
  const settings = options(args);
  const stop = watchForStop({ onForcedExit: () => out.error('svc: second signal while stopping; exiting now') });
  try {
    const ctx = await openContext(args);
    let tunneler;
    try {
      tunneler = await startTunneler(ctx, {
        ...settings,
        maxPorts: MAX_PORTS_PER_SERVICE,
        onChange: (view) => printView(view, ctx.identity.name, args.json, out),
        report: (line) => out.error(`svc tunnel: ${line}`),
      });
    } catch (error) {
      await ctx.close();
      throw cliErrorOf(error);
    }
    const reason = await stop.stopped;
    if (!args.json) out.print(`stopping (${reason})...`);
    await tunneler.close();
    await ctx.close();
    return 0;
  } finally {
    stop.dispose();
  }
}
