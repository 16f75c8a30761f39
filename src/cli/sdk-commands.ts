/**
 * `svc sdk dial SERVICE` and `svc sdk host SERVICE --to HOST:PORT`: the SDK from the command line. `dial` is a
 * netcat over the overlay: standard input goes to the service (its end half-closes the connection) and what the
 * service sends goes to standard output; it exits once both directions have ended. `host` binds the service and
 * pipes each incoming connection to a new TCP connection to HOST:PORT, half-closes passed on both ways, until
 * SIGINT or SIGTERM. An SDK refusal is one sentence and exit 1; an unreadable identity file or a bad address exit 2.
 */
import { connect as tcpConnect } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { parseHostPort } from '../config/host-port.js';
import { createContext, SdkError, type SvcConnection, type SvcContext } from '../sdk/index.js';
import { refusedError, usageError } from './cli-error.js';
import { createLogger } from './logger.js';
import type { Output } from './output.js';
import { watchForStop } from './stop-signals.js';

export interface SdkCommandArgs {
  service: string;
  identity: string;
  auth: 'auto' | 'oidc' | 'legacy';
}

/** An SdkError as the CLI reports it: the identity file is usage (2), anything the network refused is 1. */
export function cliErrorOf(error: unknown): Error {
  if (!(error instanceof SdkError)) return error as Error;
  return error.code === 'BAD_IDENTITY' ? usageError(`--identity: ${error.message}`) : refusedError(error.message);
}

/** Logs the identity in, its failures as CLI errors (also for `svc tunnel`). */
export async function openContext(args: Pick<SdkCommandArgs, 'identity' | 'auth'>): Promise<SvcContext> {
  try {
    // Warnings and worse only: stdout may carry the service's bytes, and stderr the one-sentence errors.
    return await createContext({ identityFile: args.identity, auth: args.auth, log: createLogger(process.env.SVC_LOG_LEVEL ?? 'warn') });
  } catch (error) {
    throw cliErrorOf(error);
  }
}

/** Resolves once `stream` has ended or closed (an error counts as an end). */
const ended = (stream: Readable | Writable, event: 'end' | 'finish'): Promise<void> =>
  new Promise((resolve) => {
    stream.once(event, resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });

export async function sdkDialCommand(args: SdkCommandArgs, io: { stdin: Readable; stdout: Writable }, out: Output): Promise<number> {
  const ctx = await openContext(args);
  let conn: SvcConnection;
  try {
    conn = await ctx.dial(args.service);
  } catch (error) {
    await ctx.close();
    throw cliErrorOf(error);
  }
  let failure: Error | undefined;
  conn.on('error', (error) => (failure ??= error));
  const received = ended(conn, 'end');
  const sent = ended(conn, 'finish');
  conn.pipe(io.stdout, { end: false });
  io.stdin.pipe(conn);
  await Promise.all([received, sent]);
  io.stdin.unpipe(conn);
  conn.destroy();
  await ctx.close();
  if (failure) {
    out.error(`svc: the connection to service '${args.service}' failed: ${failure.message}`);
    return 1;
  }
  return 0;
}

/** Joins an overlay connection and a TCP socket both ways, half-closes included; either failing ends both. */
function bridge(conn: SvcConnection, host: string, port: number, out: Output): void {
  const tcp = tcpConnect({ host, port, allowHalfOpen: true });
  const fail = (error: Error) => {
    out.error(`svc: a connection of service '${conn.service}'${conn.callerId ? ` from ${conn.callerId}` : ''} to ${host}:${port} ended: ${error.message}`);
    tcp.destroy();
    conn.destroy();
  };
  tcp.once('error', fail);
  conn.once('error', fail);
  conn.pipe(tcp);
  tcp.pipe(conn);
  // Both directions over: nothing is left to carry.
  Promise.all([ended(tcp, 'end'), ended(conn, 'end')]).then(() => {
    tcp.end();
    conn.end();
  });
  conn.once('close', () => tcp.destroy());
}

export async function sdkHostCommand(args: SdkCommandArgs & { to: string }, out: Output): Promise<number> {
  const target = parseHostPort(args.to);
  if (!target.ok) throw usageError(`--to: ${target.problem}`);
  const { host, port } = target.value;
  const stop = watchForStop({ onForcedExit: () => out.error('svc: second signal while stopping; exiting now') });
  try {
    const ctx = await openContext(args);
    let listener;
    try {
      listener = await ctx.listen(args.service, (conn) => bridge(conn, host, port, out));
    } catch (error) {
      await ctx.close();
      throw cliErrorOf(error);
    }
    out.print(`hosting service '${args.service}' on router${listener.routers.length === 1 ? '' : 's'} ${listener.routers.join(', ')}; connections go to ${host}:${port}`);
    const reason = await stop.stopped;
    out.print(`stopping (${reason})...`);
    await listener.close();
    await ctx.close();
    return 0;
  } finally {
    stop.dispose();
  }
}
