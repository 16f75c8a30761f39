/**
 * Circuits on this router (issue 43, decision 0069). A dial that starts here (an SDK's Connect, a proxy listener's
 * connection) asks the controller which terminator and which path; when the terminator is on this router its egress
 * (the SDK binding, the tunnel host) opens the far end here, otherwise a Route goes along the path's links and each
 * router passes it on until the last one opens the far end. Payloads and the circuit's end then travel hop by hop.
 * A lost link ends every circuit crossing it, with the reason, at both ends. The circuits that start here are
 * reported to the controller when they end, and listed to it after a reconnect (it forgets the others).
 */
import type { Logger } from 'pino';
import { encode, read, type Message } from '../../channel/message.js';
import { ControlBodyError, DialAnswerSchema, ReconcileAnswerSchema, readBody, type DialAnswer } from '../../control-protocol/bodies.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import { readAnswer, refusal, success } from '../../control-protocol/results.js';
import type { ControlClient } from '../control/control-client.js';
import type { Link } from '../links/link.js';
import { LinkHeader, LinkType, payloadOf, RouteAnswerSchema, RouteBodySchema, type RouteBody } from '../links/link-protocol.js';
import { EgressError, type CircuitEnd, type DialerInfo, type Egress } from './circuit-end.js';
import { Hop } from './hop.js';

/** How long a whole path may take to open, the far end's dial included. */
const ROUTE_TIMEOUT_MS = 15_000;
/** What each hop keeps for itself out of the time it was given. */
const HOP_MARGIN_MS = 500;
const CONTROL_TIMEOUT_MS = 10_000;
/** Dials tried in all when the far end or the path fails after the controller chose them. */
const MAX_ATTEMPTS = 3;
/** Ended circuits are reported in batches, at most this often. */
const REPORT_EVERY_MS = 1_000;

export interface DialRequestOfFabric {
  identityId: string;
  identityName: string;
  serviceId?: string;
  serviceName?: string;
  apiSessionId?: string;
  instanceId?: string;
  dialer: Omit<DialerInfo, 'identityId' | 'identityName' | 'publicKey'>;
  /** Called once the controller said whether the service requires encryption: the dialer's public key, or undefined. */
  publicKeyFor(encryptionRequired: boolean): Buffer | undefined;
}

export interface DialResult {
  circuitId: string;
  serviceId: string;
  /** The end to send the dialer's payloads to. */
  peer: CircuitEnd;
  /** The far end's public key (it encrypts end to end). */
  publicKey?: Buffer;
  encryptionRequired: boolean;
}

/** A dial that did not open: `refused` when the controller said no (access, nothing hosts it), `failed` otherwise. */
export class DialError extends Error {
  override readonly name = 'DialError';
  constructor(
    message: string,
    readonly kind: 'refused' | 'failed',
  ) {
    super(message);
  }
}

/** A dial that failed past the controller: at the far end or on the path to it (another terminator may do). */
class FarEndError extends Error {
  constructor(
    message: string,
    readonly terminatorId: string,
    readonly kind: 'failed' = 'failed',
  ) {
    super(message);
  }
}

export interface Fabric {
  dial(request: DialRequestOfFabric, end: CircuitEnd): Promise<DialResult>;
  registerEgress(binding: 'edge' | 'tunnel', egress: Egress): void;
  /** A message on a link that belongs to the fabric (Route, Payload, CircuitClose). */
  linkMessage(link: Link, m: Message): void;
  /** A link closed: every circuit crossing it ends. */
  linkClosed(link: Link, reason: string): void;
  /** After every (re)connect to a controller: the circuits that began here and are still up. */
  reconcile(): Promise<void>;
  /** Circuits that began here and are up. */
  readonly circuits: number;
  stop(): void;
}

export interface FabricDeps {
  control: Pick<ControlClient, 'request' | 'notify' | 'connected' | 'controller'>;
  links: { get(id: string): Link | undefined };
  log: Logger;
  relayed(bytes: number): void;
  circuitsChanged?(open: number): void;
}

const b64 = (value: Buffer | undefined): string | undefined => (value ? value.toString('base64') : undefined);
const unb64 = (value: string | undefined): Buffer | undefined => (value ? Buffer.from(value, 'base64') : undefined);

/**
 * `end` as seen through a wrapper: `onEnd` runs the first time it is ended, and while `open()` is false nothing
 * reaches `end` (a failed dial attempt cannot touch the dialer's end later). Otherwise it is `end`.
 */
function wrapped(end: CircuitEnd, hooks: { onEnd?(reason: string): void; open?(): boolean }): CircuitEnd {
  let ended = false;
  const open = hooks.open ?? (() => true);
  return {
    get label() {
      return end.label;
    },
    send: (payload) => (open() ? end.send(payload) : undefined),
    end(reason) {
      if (!open()) return;
      if (!ended) {
        ended = true;
        hooks.onEnd?.(reason);
      }
      end.end(reason);
    },
    get queued() {
      return end.queued;
    },
    onceDrained: (listener) => end.onceDrained(listener),
    pause: () => end.pause(),
    resume: () => end.resume(),
  };
}

export function createFabric(deps: FabricDeps): Fabric {
  const { control, links, log } = deps;
  const egresses = new Map<string, Egress>();
  const ingress = new Set<string>();
  let ended: Array<{ id: string; reason: string }> = [];

  const flush = () => {
    if (ended.length === 0 || !control.connected) return;
    for (let i = 0; i < ended.length; i += 10_000) control.notify(ControlType.CircuitsEnded, { circuits: ended.slice(i, i + 10_000) });
    ended = [];
  };
  const reportTimer = setInterval(flush, REPORT_EVERY_MS);
  reportTimer.unref();

  function circuitEnded(id: string, reason: string): void {
    if (!ingress.delete(id)) return;
    ended.push({ id, reason: reason.slice(0, 500) || 'closed' });
    deps.circuitsChanged?.(ingress.size);
  }

  const selfId = () => control.controller?.routerId;

  /** Opens the far end on this router through the egress of the terminator's binding. */
  async function openHere(route: { circuitId: string; serviceId: string; terminator: { id: string; binding: string }; dialer: DialerInfo }, peer: CircuitEnd) {
    const egress = egresses.get(route.terminator.binding);
    if (!egress) throw new EgressError(`this router does not host terminators of binding '${route.terminator.binding}'`, 'internal');
    return egress.dial({ circuitId: route.circuitId, terminatorId: route.terminator.id, serviceId: route.serviceId, dialer: route.dialer }, peer);
  }

  /** Sends a Route over `link` for a new hop; resolves with the far end's key when every router after accepted. */
  async function routeOver(link: Link, hop: Hop, body: RouteBody): Promise<Buffer | undefined> {
    const answer = await link.channel.request(
      { contentType: LinkType.Route, headers: [[LinkHeader.Circuit, encode.u32(hop.circuit)]], body: JSON.stringify(body) },
      body.timeoutMs,
    );
    return unb64(readAnswer(answer, RouteAnswerSchema, 'Route').publicKey);
  }

  function nextLink(answerLinks: readonly string[], nextRouter: string): Link {
    const link = links.get(answerLinks[0] ?? '');
    if (!link || link.channel.closed) throw new DialError(`link ${answerLinks[0]} toward router ${nextRouter} is not up on this router`, 'failed');
    if (link.peerRouterId !== nextRouter) throw new DialError(`link ${link.id} leads to router ${link.peerRouterId}, not to ${nextRouter} as the path says`, 'failed');
    return link;
  }

  async function askController(request: DialRequestOfFabric, exclude: readonly string[]): Promise<DialAnswer> {
    if (!control.connected) throw new DialError('the router cannot reach a controller', 'failed');
    try {
      return await control.request(
        ControlType.DialRequest,
        {
          identityId: request.identityId,
          ...(request.serviceId !== undefined ? { serviceId: request.serviceId } : { serviceName: request.serviceName }),
          ...(request.apiSessionId !== undefined ? { apiSessionId: request.apiSessionId } : {}),
          ...(request.instanceId ? { instanceId: request.instanceId } : {}),
          ...(exclude.length > 0 ? { exclude: [...exclude] } : {}),
        },
        DialAnswerSchema,
        CONTROL_TIMEOUT_MS,
      );
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new DialError((error as Error).message, code === 'NOT_ALLOWED' || code === 'NOT_FOUND' ? 'refused' : 'failed');
    }
  }

  /**
   * Dials; when the path or the far end fails after the controller chose them (a link just lost, a target that
   * refuses, a host gone), asks again without that terminator, up to MAX_ATTEMPTS in all.
   */
  async function dial(request: DialRequestOfFabric, end: CircuitEnd): Promise<DialResult> {
    const exclude: string[] = [];
    let lastFarEnd: FarEndError | undefined;
    for (;;) {
      // Each attempt sees `end` through a gate: whatever a failed attempt leaves behind cannot reach it later.
      let open = true;
      const gated = wrapped(end, { open: () => open });
      try {
        return await dialOnce(request, gated, exclude);
      } catch (error) {
        open = false;
        // After a failure at a far end, that failure is the one to tell, not "nothing else hosts it".
        if (!(error instanceof FarEndError)) throw lastFarEnd ? new DialError(lastFarEnd.message, 'failed') : error;
        if (exclude.length + 1 >= MAX_ATTEMPTS) throw new DialError(error.message, error.kind);
        lastFarEnd = error;
        exclude.push(error.terminatorId);
        log.info({ terminator: error.terminatorId, err: error.message }, `a dial of ${request.serviceName ?? request.serviceId} failed at terminator ${error.terminatorId} (${error.message}); trying another`);
      }
    }
  }

  async function dialOnce(request: DialRequestOfFabric, end: CircuitEnd, exclude: readonly string[]): Promise<DialResult> {
    const answer = await askController(request, exclude);
    const publicKey = request.publicKeyFor(answer.encryptionRequired);
    if (answer.encryptionRequired && !publicKey) {
      throw new DialError(`service ${answer.serviceName} requires end-to-end encryption and the dial carries no public key`, 'refused');
    }
    const dialer: DialerInfo = { identityId: request.identityId, identityName: request.identityName, ...request.dialer, ...(publicKey ? { publicKey } : {}) };
    const circuitId = answer.circuitId;
    ingress.add(circuitId);
    deps.circuitsChanged?.(ingress.size);
    const toDialer = wrapped(end, { onEnd: (reason) => circuitEnded(circuitId, reason) });
    let peer: CircuitEnd;
    let farKey: Buffer | undefined;
    try {
      if (answer.path.length === 1) {
        const accepted = await openHere({ circuitId, serviceId: answer.serviceId, terminator: answer.terminator, dialer }, toDialer);
        peer = accepted.end;
        farKey = accepted.publicKey;
      } else {
        const link = nextLink(answer.links, answer.path[1]!);
        const hop = new Hop(link, link.nextCircuitNumber(), deps.relayed);
        try {
          farKey = await routeOver(link, hop, {
            circuitId,
            serviceId: answer.serviceId,
            terminator: { id: answer.terminator.id, binding: answer.terminator.binding },
            path: answer.path.slice(1),
            links: answer.links.slice(1),
            timeoutMs: ROUTE_TIMEOUT_MS,
            dialer: { identityId: dialer.identityId, identityName: dialer.identityName, callerId: b64(dialer.callerId), publicKey: b64(dialer.publicKey), connectionMarker: b64(dialer.connectionMarker), appData: b64(dialer.appData) },
          });
        } catch (error) {
          hop.end('the route was not set up');
          throw error;
        }
        if (hop.closed) throw new DialError('the path closed while the circuit was being set up', 'failed');
        hop.inlet.connect(toDialer);
        peer = hop;
      }
    } catch (error) {
      circuitEnded(circuitId, (error as Error).message);
      const kind = error instanceof EgressError && error.kind === 'denied' ? 'refused' : 'failed';
      if (kind === 'failed') throw new FarEndError((error as Error).message, answer.terminator.id);
      throw error instanceof DialError ? error : new DialError((error as Error).message, kind);
    }
    if (answer.encryptionRequired && !farKey) {
      peer.end('the hosting end sent no public key');
      circuitEnded(circuitId, 'no public key from the hosting end');
      throw new DialError(`service ${answer.serviceName} requires end-to-end encryption and its hosting end sent no public key`, 'failed');
    }
    return { circuitId, serviceId: answer.serviceId, peer: wrapped(peer, { onEnd: (reason) => circuitEnded(circuitId, reason) }), ...(farKey ? { publicKey: farKey } : {}), encryptionRequired: answer.encryptionRequired };
  }

  /** A Route from the previous router: open the far end here, or pass it on along the path. */
  async function route(link: Link, m: Message): Promise<void> {
    const circuit = read.u32(m, LinkHeader.Circuit);
    let body: RouteBody;
    try {
      if (circuit === undefined) throw new ControlBodyError('Route: header Circuit (31012) is missing');
      body = readBody(RouteBodySchema, m.body, 'Route');
    } catch (error) {
      link.channel.reply(m, refusal('BAD_MESSAGE', (error as Error).message));
      return;
    }
    if (link.hops.has(circuit)) {
      link.channel.reply(m, refusal('BAD_MESSAGE', `Route: circuit number ${circuit} is already in use on link ${link.id}`));
      return;
    }
    if (body.path[0] !== selfId()) {
      link.channel.reply(m, refusal('BAD_MESSAGE', `Route: the path names router ${body.path[0]} here, and this is ${selfId() ?? 'a router not connected to a controller'}`));
      return;
    }
    const inbound = new Hop(link, circuit, deps.relayed);
    const dialer: DialerInfo = {
      identityId: body.dialer.identityId,
      identityName: body.dialer.identityName,
      ...(body.dialer.callerId ? { callerId: unb64(body.dialer.callerId)! } : {}),
      ...(body.dialer.publicKey ? { publicKey: unb64(body.dialer.publicKey)! } : {}),
      ...(body.dialer.connectionMarker ? { connectionMarker: unb64(body.dialer.connectionMarker)! } : {}),
      ...(body.dialer.appData ? { appData: unb64(body.dialer.appData)! } : {}),
    };
    try {
      let publicKey: Buffer | undefined;
      let far: CircuitEnd;
      if (body.path.length === 1) {
        const accepted = await openHere({ circuitId: body.circuitId, serviceId: body.serviceId, terminator: body.terminator, dialer }, inbound);
        far = accepted.end;
        publicKey = accepted.publicKey;
      } else {
        const next = nextLink(body.links, body.path[1]!);
        const outbound = new Hop(next, next.nextCircuitNumber(), deps.relayed);
        try {
          publicKey = await routeOver(next, outbound, { ...body, path: body.path.slice(1), links: body.links.slice(1), timeoutMs: Math.max(1, body.timeoutMs - HOP_MARGIN_MS) });
        } catch (error) {
          outbound.end('the route was not set up');
          throw error;
        }
        outbound.inlet.connect(inbound);
        far = outbound;
      }
      if (inbound.closed) {
        far.end('the previous router closed the circuit while it was being set up');
        return;
      }
      inbound.inlet.connect(far);
      link.channel.reply(m, success(publicKey ? { publicKey: publicKey.toString('base64') } : {}));
    } catch (error) {
      inbound.end('');
      const code = error instanceof EgressError && error.kind === 'denied' ? 'NOT_ALLOWED' : 'UNAVAILABLE';
      if (!link.channel.closed) link.channel.reply(m, refusal(code, (error as Error).message.slice(0, 1_000)));
      log.debug({ circuit: body.circuitId, link: link.id, err: (error as Error).message }, `circuit ${body.circuitId} not routed: ${(error as Error).message}`);
    }
  }

  return {
    dial,
    registerEgress(binding, egress) {
      egresses.set(binding, egress);
    },
    linkMessage(link, m) {
      switch (m.contentType) {
        case LinkType.Payload: {
          const hop = link.hops.get(read.u32(m, LinkHeader.Circuit) ?? -1);
          if (hop) hop.inlet.push(payloadOf(m));
          return;
        }
        case LinkType.CircuitClose: {
          link.hops.get(read.u32(m, LinkHeader.Circuit) ?? -1)?.closedByLink(m.body.toString('utf8') || 'closed by the next router');
          return;
        }
        case LinkType.Route:
          route(link, m).catch((error) => log.error({ err: error, link: link.id }, `a Route failed: ${(error as Error).message}`));
          return;
        default:
          log.debug({ link: link.id, contentType: m.contentType }, 'a link message of an unknown content type was dropped');
      }
    },
    linkClosed(link, reason) {
      for (const hop of [...link.hops.values()]) hop.closedByLink(`the link to router ${link.peerName} closed: ${reason}`);
    },
    async reconcile() {
      flush();
      try {
        const answer = await control.request(ControlType.ReconcileCircuits, { keep: [...ingress] }, ReconcileAnswerSchema, CONTROL_TIMEOUT_MS);
        if (answer.removed > 0) log.info({ removed: answer.removed }, `the controller forgot ${answer.removed} circuits that ended while it was away`);
      } catch (error) {
        log.warn({ err: error }, `the circuits could not be reconciled with the controller: ${(error as Error).message}`);
      }
    },
    get circuits() {
      return ingress.size;
    },
    stop() {
      clearInterval(reportTimer);
      flush();
    },
  };
}
