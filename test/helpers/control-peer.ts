/**
 * A router at the control-protocol level only (issue 43): an enrolled router's key and certificate on a real mutual
 * TLS control channel to the controller, saying the Hello a test gives (link listeners, capabilities), keeping what
 * the controller pushes by content type, and sending requests and notices. No router process: the controller's side
 * of links, circuits and hosted services is tested alone. Builders return values and never assert.
 */
import { once } from 'node:events';
import { connect } from 'node:tls';
import type { Static, TSchema } from 'typebox';
import { dialHello, encode, type Channel, type Message } from '../../src/channel/index.js';
import { CONTROL_LIMITS, CONTROL_PROTOCOL_VERSION, ControlHeader } from '../../src/control-protocol/catalogue.js';
import { writeBody, type RouterHello } from '../../src/control-protocol/bodies.js';
import { readAnswer } from '../../src/control-protocol/results.js';
import type { EnrolledRouter } from './routers.js';

export interface ControlPeer {
  channel: Channel;
  /** Every message the controller pushed, in order. */
  pushed: Message[];
  request<S extends TSchema>(contentType: number, body: unknown, schema: S): Promise<Static<S>>;
  notify(contentType: number, body: unknown): void;
  close(): void;
}

/** A Hello naming `links` as link listeners (`tls:host:port` with groups) beside one edge listener. */
export function helloWithLinks(links: { advertise: string; groups?: string[] }[], capabilities: string[] = ['edge', 'link']): RouterHello {
  return {
    protocol: CONTROL_PROTOCOL_VERSION,
    versionInfo: { version: '0.0.0-test', revision: 'test', buildDate: 'now', os: 'linux', arch: 'x64' },
    hostname: 'peer.test',
    listeners: [{ binding: 'edge', advertise: 'tls:edge.example:3022' }, ...links.map((link) => ({ binding: 'link', advertise: link.advertise, ...(link.groups ? { groups: link.groups } : {}) }))],
    capabilities,
  };
}

/** Opens router `router`'s control channel to `port` on 127.0.0.1 with `hello`. */
export async function controlPeer(port: number, router: Pick<EnrolledRouter, 'keyPem' | 'certPem'>, ca: string, hello: RouterHello): Promise<ControlPeer> {
  const socket = connect({ host: '127.0.0.1', port, key: router.keyPem, cert: router.certPem, ca, servername: 'localhost' });
  await once(socket, 'secureConnect');
  const headers = new Map([[ControlHeader.ProtocolVersion, encode.u32(CONTROL_PROTOCOL_VERSION)]]);
  const { channel } = await dialHello(socket, { contentType: 0, headers, body: writeBody(hello) }, { timeoutMs: 5_000, limits: CONTROL_LIMITS, heartbeat: false });
  const pushed: Message[] = [];
  channel.onMessage((message) => pushed.push(message));
  return {
    channel,
    pushed,
    async request(contentType, body, schema) {
      return readAnswer(await channel.request({ contentType, body: writeBody(body) }, 5_000), schema, `the answer to ${contentType}`);
    },
    notify(contentType, body) {
      channel.send({ contentType, body: writeBody(body) });
    },
    close: () => channel.close('the test is done'),
  };
}
