/**
 * A raw SDK edge channel for tests (issue 42): identities with client certificates, their API-session tokens (OIDC
 * access token or legacy `svc-session`) and session tokens from the controller, and a channel to a router's edge
 * listener over real TLS with the `ziti-edge` ALPN, speaking the frames the public C SDK sends
 * (reference/edge-router-protocol-facts.md). Tests drive it message by message to see exactly what the router
 * answers, bad input included. Builders return values and never assert.
 */
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import * as client from 'openid-client';
import { dialHello, type Channel } from '../../src/channel/channel.js';
import { encode, read, type Message } from '../../src/channel/message.js';
import { EdgeHeader, EdgeType } from '../../src/channel/edge-protocol.js';
import type { TestController } from './controller.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from './fixtures.js';
import { discoverClient, followCallback, startLogin } from './oidc.js';

export interface CertIdentity {
  id: string;
  name: string;
  certPem: string;
  keyPem: string;
  leafPem: string;
  fingerprint: string;
}

/** An identity with a certificate authenticator, as an ott enrollment leaves it. */
export async function certIdentity(ctl: TestController, name: string): Promise<CertIdentity> {
  const { id } = await createIdentity(ctl.running.database, { name });
  const issued = await issueClientCertificate(ctl.pki, name);
  await addCertAuthenticator(ctl.running.database, id, issued.leafPem);
  return { id, name, certPem: issued.certPem, keyPem: issued.keyPem, leafPem: issued.leafPem, fingerprint: issued.fingerprint.toLowerCase() };
}

/** An OIDC login with the certificate, to tokens. */
export async function oidcTokens(ctl: TestController, who: Pick<CertIdentity, 'certPem' | 'keyPem'>): Promise<{ accessToken: string; refreshToken: string }> {
  const config = await discoverClient(ctl);
  const started = await startLogin(ctl, config, {}, who);
  const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, cert: who.certPem, key: who.keyPem });
  if (login.status !== 302) throw new Error(`cert login failed: ${login.status} ${login.text}`);
  const tokens = await client.authorizationCodeGrant(config, new URL(String(await followCallback(ctl, login.headers.location))), {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
  });
  return { accessToken: tokens.access_token, refreshToken: String(tokens.refresh_token) };
}

/** A legacy API session with the certificate (`POST /authenticate?method=cert`): its `svc-session` token. */
export async function legacyToken(ctl: TestController, who: Pick<CertIdentity, 'certPem' | 'keyPem'>): Promise<{ token: string; id: string }> {
  const res = await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', body: {}, cert: who.certPem, key: who.keyPem });
  if (res.status !== 200) throw new Error(`legacy cert login failed: ${res.status} ${res.text}`);
  return { token: res.json().data.token, id: res.json().data.id };
}

/** The header that carries an API-session token to the client API. */
export const authHeader = (apiToken: string): Record<string, string> => (apiToken.startsWith('ey') ? { authorization: `Bearer ${apiToken}` } : { 'svc-session': apiToken });

/** `POST /sessions` for a service: the session token the SDK puts in Connect or Bind. */
export async function sessionToken(ctl: TestController, apiToken: string, serviceId: string, type: 'Dial' | 'Bind'): Promise<string> {
  const res = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers: authHeader(apiToken), body: { serviceId, type } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST /sessions failed: ${res.status} ${res.text}`);
  return res.json().data.token;
}

export interface EdgeTestChannel {
  channel: Channel;
  socket: TLSSocket;
  hello: Message;
  /** Every message the router sent that was not a reply to a request. */
  received: Message[];
  /** Resolves with the first received message matching, waiting up to `timeoutMs`. */
  next(match: (m: Message) => boolean, timeoutMs?: number): Promise<Message>;
  closed: Promise<string>;
}

export interface EdgeConnectOptions {
  port: number;
  /** The router's certificate must carry this DNS name (the test routers' `<name>.routers.test`). */
  servername: string;
  ca: string;
  who: Pick<CertIdentity, 'certPem' | 'keyPem'>;
  token: string;
  alpn?: string[];
}

export function edgeSocket(options: Omit<EdgeConnectOptions, 'token'>): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: options.port,
      servername: options.servername,
      ca: options.ca,
      cert: options.who.certPem,
      key: options.who.keyPem,
      ALPNProtocols: options.alpn ?? ['ziti-edge'],
    });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Opens a channel as the C SDK does: TLS, then Hello with the token in header 1002. Rejects when refused. */
export async function openEdge(options: EdgeConnectOptions): Promise<EdgeTestChannel> {
  const socket = await edgeSocket(options);
  const { channel, reply } = await dialHello(
    socket,
    {
      contentType: 0,
      headers: [
        [EdgeHeader.SessionToken, encode.string(options.token)],
        [EdgeHeader.SupportsInspect, encode.bool(true)],
        [7, encode.string('edge.default')],
      ],
      body: 'ziti-sdk-c[0]@test',
    },
    { timeoutMs: 10_000, heartbeat: false },
  );
  const received: Message[] = [];
  const waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  channel.onMessage((m) => {
    received.push(m);
    for (const waiter of [...waiters]) {
      if (waiter.match(m)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(m);
      }
    }
  });
  const closed = new Promise<string>((resolve) => channel.onClose(({ reason }) => resolve(reason)));
  return {
    channel,
    socket,
    hello: reply,
    received,
    closed,
    next(match, timeoutMs = 10_000) {
      const seen = received.find(match);
      if (seen) {
        received.splice(received.indexOf(seen), 1);
        return Promise.resolve(seen);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          match,
          resolve: (m) => {
            clearTimeout(timer);
            received.splice(received.indexOf(m), 1);
            resolve(m);
          },
        });
      });
    },
  };
}

/** Headers of a message by id, for assertions. */
export const connIdOf = (m: Message): number | undefined => read.u32(m, EdgeHeader.ConnId);

/** Connect (dial) with the session token; resolves with the router's answer (StateConnected or StateClosed). */
export function dial(edge: EdgeTestChannel, connId: number, token: string, extra: Array<[number, Buffer]> = []): Promise<Message> {
  return edge.channel.request({ contentType: EdgeType.Connect, headers: [[EdgeHeader.ConnId, encode.u32(connId)], [EdgeHeader.Seq, encode.u32(0)], ...extra], body: token }, 15_000);
}

/** Bind (host) with the session token; resolves with the router's answer. */
export function bind(edge: EdgeTestChannel, connId: number, token: string, extra: Array<[number, Buffer]> = []): Promise<Message> {
  return edge.channel.request(
    {
      contentType: EdgeType.Bind,
      headers: [[EdgeHeader.ConnId, encode.u32(connId)], [EdgeHeader.Seq, encode.u32(0)], [EdgeHeader.ListenerId, encode.string('l'.repeat(32))], [EdgeHeader.RouterProvidedConnId, encode.bool(true)], ...extra],
      body: token,
    },
    15_000,
  );
}

/** Sends Data on a connection. */
export function sendData(edge: EdgeTestChannel, connId: number, body: Buffer | string, flags = 0): void {
  edge.channel.send({ contentType: EdgeType.Data, headers: [[EdgeHeader.ConnId, encode.u32(connId)], ...(flags ? [[EdgeHeader.Flags, encode.u32(flags)] as [number, Buffer]] : [])], body });
}

/** Answers the router's Dial on a hosting channel as the C SDK does: DialSuccess with the new connection id as body. */
export async function acceptDial(host: EdgeTestChannel, extra: Array<[number, Buffer]> = []): Promise<{ dial: Message; connId: number }> {
  const dialMessage = await host.next((m) => m.contentType === EdgeType.Dial);
  const connId = read.u32(dialMessage, EdgeHeader.RouterProvidedConnId)!;
  host.channel.reply(dialMessage, { contentType: EdgeType.DialSuccess, headers: [[EdgeHeader.ConnId, dialMessage.headers.get(EdgeHeader.ConnId)!], ...extra], body: encode.u32(connId) });
  return { dial: dialMessage, connId };
}
