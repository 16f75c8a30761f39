/**
 * The state the router keeps per SDK channel on its edge listener: who it is (the API session its Hello proved), the
 * connections on it by the SDK's connection id, the services it binds, and the small helpers that answer on it. A
 * connection is one end of a circuit; its peer is the other end, on the same or another channel.
 */
import type { TLSSocket } from 'node:tls';
import type { Channel } from '../../channel/channel.js';
import { encode, type Message } from '../../channel/message.js';
import { EdgeHeader, EdgeType } from '../../channel/edge-protocol.js';
import type { EdgeConn } from './edge-conn.js';

/** The API session behind a channel, as its Hello (and later UpdateTokens) proved it. */
export interface ChannelSession {
  apiSessionId: string;
  identityId: string;
  identityName: string;
  legacy: boolean;
  /** When the API session began (ms): an identity revoked after it ends it. */
  createdAt: number;
  /** When the token the channel holds expires (ms); undefined for a legacy session (the controller ends it). */
  expiresAt: number | undefined;
}

export interface EdgeBinding {
  readonly channel: SdkChannel;
  /** The SDK's connection id of the binding (the "server" conn). */
  readonly connId: number;
  token: string;
  serviceId: string;
  sessionId: string;
  /** Set once the controller created the terminator. */
  terminatorId: string | undefined;
  closed: boolean;
  cost: number | undefined;
  precedence: 'default' | 'required' | 'failed' | undefined;
  instanceId: string | undefined;
}

export interface SdkChannel {
  readonly id: string;
  readonly channel: Channel;
  readonly socket: TLSSocket;
  /** SHA-1 (lowercase hex) of the SDK's client certificate. */
  readonly fingerprint: string;
  session: ChannelSession;
  /** The API-session token the channel holds (JWT or legacy); replaced by UpdateToken. */
  token: string;
  readonly conns: Map<number, EdgeConn>;
  readonly bindings: Map<number, EdgeBinding>;
  /** The next router-provided connection id for a Dial to this channel's bindings (above 2^31, as the reference). */
  nextDialConnId: number;
  /** Pauses reading the channel (counted): one of its connections' peers is congested. */
  readonly reading: { pause(): void; resume(): void };
  expiryTimer: NodeJS.Timeout | undefined;
}

export const FIRST_ROUTER_CONN_ID = 2 ** 31 + 1;

/** Sends StateClosed for `connId` with a reason; as the reply to `request` when given. */
export function sendStateClosed(sdk: SdkChannel, connId: number, reason: string, request?: Message, extra: Array<[number, Buffer]> = []): void {
  const m = { contentType: EdgeType.StateClosed, headers: [[EdgeHeader.ConnId, encode.u32(connId)], ...extra] as Array<[number, Buffer]>, body: reason };
  if (request) sdk.channel.reply(request, m);
  else sdk.channel.send(m);
}

/** A short label for logs: the channel, the identity and the API session (never the token). */
export const describe = (sdk: SdkChannel): Record<string, string> => ({ channel: sdk.id, identity: sdk.session.identityName || sdk.session.identityId, apiSession: sdk.session.apiSessionId });
