/**
 * Host mode's far end of a circuit (issue 43, facts §5C): for a circuit to one of this router's `tunnel` terminators,
 * resolve where it goes (host-config.ts), dial TCP or UDP there, and answer a circuit end around the socket. When the
 * dialer sent a public key the router is the end-to-end encryption peer (libsodium kx *server* keys, secretstream),
 * and its own public key goes back to the dialer.
 *
 * A target that refuses or does not answer in time fails the dial with a sentence and sets its terminator's
 * precedence to `failed`, so the controller prefers the service's other terminators; the next successful connection,
 * or a re-check every RECHECK_MS (a terminator nobody is routed to would otherwise stay failed), sets it back to the
 * config's precedence (decision 0071).
 */
import { connect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { TerminatorAnswerSchema } from '../../control-protocol/bodies.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import { e2eeSession, newKeyPair, sodiumReady, type E2eeSession } from '../../sdk/e2ee.js';
import { startPeriodic } from '../../shared/periodic.js';
import type { ControlClient } from '../control/control-client.js';
import { EgressError, type Egress } from '../fabric/circuit-end.js';
import { resolveDestination, type Destination, type HostTarget } from './host-config.js';
import { tcpEnd } from './tcp-end.js';
import type { TunnelEnd } from './tunnel-end.js';
import { udpEnd } from './udp-end.js';

/** How often targets marked failed are tried again. */
export const RECHECK_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface HostEgressDeps {
  /** The target behind one of this router's tunnel terminators (hosted-services.ts keeps the map). */
  targetFor(terminatorId: string): HostTarget | undefined;
  control: Pick<ControlClient, 'request' | 'connected'>;
  log: Logger;
}

export interface HostEgress extends Egress {
  /** Circuits open to hosted targets now. */
  readonly open: number;
  /** Terminators marked failed, by id, with the destination that failed. */
  failed(): ReadonlyMap<string, Destination>;
  /** Tries every failed target now (what the periodic re-check does). */
  recheck(): Promise<void>;
  stop(): Promise<void>;
}

export function createHostEgress(deps: HostEgressDeps): HostEgress {
  const { log } = deps;
  const perTerminator = new Map<string, number>();
  const failed = new Map<string, Destination>();
  let open = 0;

  async function setPrecedence(terminatorId: string, precedence: HostTarget['precedence']): Promise<boolean> {
    try {
      await deps.control.request(ControlType.UpdateTerminator, { id: terminatorId, precedence }, TerminatorAnswerSchema, REQUEST_TIMEOUT_MS);
      return true;
    } catch (error) {
      log.warn({ terminator: terminatorId, err: error }, `the precedence of terminator ${terminatorId} could not be set to ${precedence}: ${(error as Error).message}`);
      return false;
    }
  }

  function markFailed(terminatorId: string, target: HostTarget, destination: Destination): void {
    if (failed.has(terminatorId)) return;
    failed.set(terminatorId, destination);
    void setPrecedence(terminatorId, 'failed').then((told) => {
      // Not told (no controller now): the next failure tries again.
      if (!told) failed.delete(terminatorId);
      else log.warn({ terminator: terminatorId, service: target.serviceName }, `terminator ${terminatorId} of service '${target.serviceName}' is marked failed until ${describe(destination)} accepts a connection again`);
    });
  }

  function markHealthy(terminatorId: string, target: HostTarget): void {
    if (!failed.delete(terminatorId)) return;
    void setPrecedence(terminatorId, target.precedence).then((told) => {
      if (told) log.info({ terminator: terminatorId, service: target.serviceName }, `terminator ${terminatorId} of service '${target.serviceName}' accepts connections again (precedence ${target.precedence})`);
    });
  }

  const recheck = startPeriodic(
    async () => {
      for (const [terminatorId, destination] of [...failed]) {
        const target = deps.targetFor(terminatorId);
        if (!target) {
          failed.delete(terminatorId);
          continue;
        }
        const probe = await openEnd(destination, target, 'probe', () => undefined).catch(() => undefined);
        if (!probe) continue;
        probe.lost('re-check done');
        markHealthy(terminatorId, target);
      }
    },
    { intervalMs: RECHECK_MS, onError: (error) => log.warn({ err: error }, `the re-check of failed tunnel targets failed: ${(error as Error).message}`) },
  );

  return {
    get open() {
      return open;
    },
    failed: () => failed,
    recheck: () => recheck.runNow(),
    stop: () => recheck.stop(),
    async dial(request, peer) {
      const { terminatorId, dialer } = request;
      const target = deps.targetFor(terminatorId);
      if (!target) throw new EgressError(`this router no longer hosts terminator ${terminatorId}`, 'internal');
      const destination = resolveDestination(target, dialer.appData);
      if ('refused' in destination) throw new EgressError(destination.refused, 'denied');
      const count = perTerminator.get(terminatorId) ?? 0;
      if (target.maxConnections !== undefined && count >= target.maxConnections) {
        throw new EgressError(`service '${target.serviceName}': ${describe(destination)} already has its maxConnections (${target.maxConnections}) open through this router`, 'denied');
      }
      if (target.encryptionRequired && !dialer.publicKey) throw new EgressError(`service '${target.serviceName}' requires end-to-end encryption, and the dialer sent no public key`, 'denied');
      const crypto = dialer.publicKey ? await serverSession(target, dialer.publicKey) : undefined;

      perTerminator.set(terminatorId, count + 1);
      open++;
      const release = (reason: string) => {
        open--;
        const left = (perTerminator.get(terminatorId) ?? 1) - 1;
        if (left > 0) perTerminator.set(terminatorId, left);
        else perTerminator.delete(terminatorId);
        log.debug({ circuit: request.circuitId, service: target.serviceName, reason }, `circuit ${request.circuitId} to ${describe(destination)} ended: ${reason}`);
      };
      let end: TunnelEnd;
      try {
        end = await openEnd(destination, target, request.circuitId, release);
      } catch (error) {
        release('not connected');
        markFailed(terminatorId, target, destination);
        throw new EgressError(`service '${target.serviceName}': ${describe(destination)} ${failureSentence(error, target.connectTimeoutMs)}`, 'refused');
      }
      markHealthy(terminatorId, target);
      // Started on the next turn: the fabric answers the dial first, so this end's header never overtakes the answer.
      setImmediate(() => end.start(peer, crypto?.session));
      return crypto ? { end, publicKey: crypto.publicKey } : { end };
    },
  };
}

async function serverSession(target: HostTarget, dialerKey: Buffer): Promise<{ session: E2eeSession; publicKey: Buffer }> {
  await sodiumReady;
  const keys = newKeyPair();
  try {
    return { session: e2eeSession('server', keys, dialerKey), publicKey: Buffer.from(keys.publicKey) };
  } catch (error) {
    throw new EgressError(`service '${target.serviceName}': ${(error as Error).message}`, 'denied');
  }
}

/** A connected socket to `destination` as a (not yet started) tunnel end. */
async function openEnd(destination: Destination, target: HostTarget, circuit: string, onEnded: (reason: string) => void): Promise<TunnelEnd> {
  const label = `${destination.protocol} ${describe(destination).replace(/^[a-z]+:/, '')} circuit ${circuit}`;
  if (destination.protocol === 'udp') return udpEnd(destination, label, onEnded);
  const socket = await connectTcp(destination, target.connectTimeoutMs);
  return tcpEnd(socket, label, onEnded);
}

function connectTcp(destination: Destination, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: destination.host, port: destination.port, allowHalfOpen: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new TimeoutError());
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

class TimeoutError extends Error {}

function failureSentence(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `did not accept the connection within ${timeoutMs / 1_000} s`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'refused the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'has a host name that does not resolve';
  return `could not be reached (${code ?? (error as Error).message})`;
}

function describe(destination: Destination): string {
  const host = destination.host.includes(':') ? `[${destination.host}]` : destination.host;
  return `${destination.protocol}:${host}:${destination.port}`;
}
