/**
 * What dial and listen share inside one SDK context: the client API, the links to routers (one per router name,
 * opened on first use and kept), connection ids (per context, from 0, as the C SDK numbers them), and helpers to
 * pick a router and to hold a connection's early messages until it is built.
 */
import type { Logger } from 'pino';
import type { Message } from '../channel/message.js';
import { SdkError } from './errors.js';
import type { ClientApi, SdkRouter, SdkService } from './client-api.js';
import type { LinkConn, RouterLink } from './router-link.js';

export interface Runtime {
  readonly identity: { id: string; name: string };
  readonly api: ClientApi;
  readonly log?: Logger;
  /** The link to `router`, opened if there is none yet. */
  link(router: SdkRouter): RouterLink;
  nextConnId(): number;
  /** The service named `name` that the identity may see, with `permission` (Dial or Bind), or a one-sentence refusal. */
  service(name: string, permission: 'Dial' | 'Bind'): Promise<SdkService>;
  readonly closed: boolean;
}

/**
 * The connected link among `routers` with the lowest latency; if none is connected yet, the first of them to
 * connect. NO_ROUTER when there are none, or none connects.
 */
export async function pickLink(runtime: Runtime, routers: SdkRouter[], what: string): Promise<RouterLink> {
  if (routers.length === 0) throw new SdkError('NO_ROUTER', `no online edge router can reach ${what}`);
  const links = routers.map((r) => runtime.link(r));
  const connected = links.filter((l) => l.connected).sort((a, b) => (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity));
  if (connected[0]) return connected[0];
  try {
    const index = await Promise.any(links.map((l, i) => l.ready().then(() => i)));
    return links[index]!;
  } catch (error) {
    const reasons = (error as AggregateError).errors?.map((e: Error) => e.message).join('; ');
    throw new SdkError('NO_ROUTER', `no edge router for ${what} could be reached: ${reasons}`);
  }
}

/** A stand-in registered for a connection id until its connection exists: it keeps what arrives, in order. */
export class EarlyMessages implements LinkConn {
  readonly held: Message[] = [];
  lostReason: string | undefined;
  constructor(readonly type: 1 | 2) {}
  onMessage(m: Message): void {
    this.held.push(m);
  }
  onLinkLost(reason: string): void {
    this.lostReason = reason;
  }
  describe(): string {
    return 'connecting';
  }
  /** Hands what was kept to `conn`. */
  replayTo(conn: LinkConn): void {
    for (const m of this.held.splice(0)) conn.onMessage(m);
    if (this.lostReason !== undefined) conn.onLinkLost(this.lostReason);
  }
}
