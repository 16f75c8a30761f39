/**
 * `svc edge watch status [--count N]`: routers coming online and going offline, and identities whose API sessions or
 * edge-router connections come and go, at any controller sharing the store, one line per event as it happens
 * (`GET /events/status`, server-sent events), until Ctrl-C or, with `--count`, N events. The stream is read as it
 * comes: nothing is buffered beyond the event being parsed.
 */
import type { Output } from '../output.js';
import { refusedError } from '../cli-error.js';
import { openManagementStream } from './management-client.js';

interface RouterEvent {
  id: string;
  name: string | null;
  isOnline: boolean;
  version?: string;
  at: string;
}

/** The event name and data of one server-sent event block (`event: x` and `data: …` lines; comments are skipped). */
function parseEvent(block: string): { event: string; data: string } {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  return { event, data: data.join('\n') };
}

interface IdentityEvent {
  id: string;
  name?: string;
  hasApiSession: boolean;
  hasEdgeRouterConnection: boolean;
  at: string;
}

export function statusLine(router: RouterEvent): string {
  const name = router.name ?? router.id;
  return `${router.at}  router ${name} ${router.isOnline ? 'online' : 'offline'}${router.version ? ` (${router.version})` : ''}`;
}

/** `… identity NAME online (API session)`: online while it has an API session or an edge-router connection. */
export function identityLine(identity: IdentityEvent): string {
  const name = identity.name ?? identity.id;
  const why = [identity.hasApiSession ? 'API session' : '', identity.hasEdgeRouterConnection ? 'edge router connection' : ''].filter(Boolean);
  return `${identity.at}  identity ${name} ${why.length > 0 ? `online (${why.join(', ')})` : 'offline'}`;
}

/** Prints router and identity events as they arrive; resolves when `count` events were printed or the controller ends the stream. */
export async function watchStatusCommand(args: { count?: number; json: boolean }, out: Output): Promise<number> {
  const stream = await openManagementStream('/events/status');
  stream.setEncoding('utf8');
  let pending = '';
  let printed = 0;
  try {
    for await (const chunk of stream) {
      pending += (chunk as string).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const { event, data } = parseEvent(pending.slice(0, end));
        pending = pending.slice(end + 2);
        if (event !== 'router' && event !== 'identity') continue;
        const parsed = JSON.parse(data) as RouterEvent & IdentityEvent;
        if (args.json) out.print(JSON.stringify({ kind: event, ...parsed }));
        else out.print(event === 'router' ? statusLine(parsed) : identityLine(parsed));
        if (args.count !== undefined && ++printed >= args.count) return 0;
      }
    }
  } finally {
    stream.destroy();
  }
  throw refusedError('the controller ended the status stream: it stopped, or the session ended (log in again to go on watching)');
}
