/**
 * `svc edge watch status [--count N]`: routers coming online and going offline at the logged-in controller, one line
 * per event as it happens (`GET /events/status`, server-sent events), until Ctrl-C or, with `--count`, N events. The
 * stream is read as it comes: nothing is buffered beyond the event being parsed.
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

export function statusLine(router: RouterEvent): string {
  const name = router.name ?? router.id;
  return `${router.at}  router ${name} ${router.isOnline ? 'online' : 'offline'}${router.version ? ` (${router.version})` : ''}`;
}

/** Prints router events as they arrive; resolves when `count` events were printed or the controller ends the stream. */
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
        if (event !== 'router') continue;
        const router = JSON.parse(data) as RouterEvent;
        out.print(args.json ? JSON.stringify(router) : statusLine(router));
        if (args.count !== undefined && ++printed >= args.count) return 0;
      }
    }
  } finally {
    stream.destroy();
  }
  throw refusedError('the controller ended the status stream: it stopped, or the session ended (log in again to go on watching)');
}
