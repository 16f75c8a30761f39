/**
 * `GET /events/status` (issue 45, administrators only): server-sent events of routers coming online and going offline
 * and of identities' presence changing, at any controller sharing the store, as they happen (the console's live
 * status; no polling on either side). The console reads it with fetch and its Bearer token, which EventSource cannot
 * send. The stream:
 * - starts with a `hello` event, then a `router` event ({id, name, isOnline, version?}) or an `identity` event
 *   ({id, name?, hasApiSession, hasEdgeRouterConnection}) for each change;
 * - keeps the connection alive with a comment every 25 s, and ends when the caller's session ends (checked then) or
 *   the controller stops;
 * - never buffers without bound: while the socket cannot take more, only the latest state of each router and
 *   identity is kept;
 * - is limited to a few at once per identity.
 */
import type { ServerResponse } from 'node:http';
import { Type } from 'typebox';
import { ApiError } from '../../errors/api-error.js';
import type { StatusEvent } from '../../services/status-events/status-events.js';
import { ApiErrorBody } from '../schemas/common.js';
import { defineRoute } from '../kit/route.js';

export const KEEP_ALIVE_MS = 25_000;
export const STREAMS_PER_IDENTITY = 5;
/** How long a stream's socket may stay quiet before it is closed: two keep-alives and a margin. */
const STREAM_IDLE_MS = 2 * KEEP_ALIVE_MS + 5_000;

const open = new Map<string, number>();

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const statusEventsRoute = defineRoute({
  method: 'GET',
  url: '/events/status',
  operationId: 'streamStatusEvents',
  summary: 'Streams routers going online and offline, and identities\' API session presence, as server-sent events (text/event-stream)',
  tags: ['Informational'],
  access: 'admin',
  uses: ['statusEvents', 'authorization'],
  produces: ['text/event-stream'],
  schema: { response: { 200: Type.String({ description: 'text/event-stream: hello, then router and identity events' }), 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody } },
  handler: ({ domains, auth, reply, request }) => {
    const identityId = auth!.identity.id;
    const count = open.get(identityId) ?? 0;
    if (count >= STREAMS_PER_IDENTITY) {
      throw new ApiError('RATE_LIMITED', { message: `identity '${auth!.identity.name}' already has ${count} status streams open, the most allowed: close one first` });
    }
    open.set(identityId, count + 1);
    reply.hijack();
    const raw: ServerResponse = reply.raw;
    // The listener closes a socket quiet for its read + write deadlines (15 s by default), which a stream is between
    // changes: its own deadline is two keep-alives instead, so a healthy stream (written at least every 25 s) stays
    // open and one whose peer has gone still ends.
    request.raw.socket.setTimeout(STREAM_IDLE_MS);
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    raw.write(frame('hello', { at: new Date().toISOString(), events: ['router', 'identity'] }));

    // What is still to be written: the latest state of each router and identity, one entry each, never more. An event
    // replaces the one of the same router or identity still waiting, and goes to the back (the order of changes).
    const pending = new Map<string, StatusEvent>();
    const render = async (event: StatusEvent): Promise<string> => {
      if (event.kind === 'identity') {
        const { id, name, hasApiSession, hasEdgeRouterConnection, at } = event;
        return frame('identity', { id, ...(name === undefined ? {} : { name }), hasApiSession, hasEdgeRouterConnection, at: at.toISOString() });
      }
      // The router's name is read as it is written (routers are few, their events rare).
      const router = await domains.authorization.edgeRouters.get(event.id).catch(() => undefined);
      return frame('router', { id: event.id, name: router?.name ?? null, isOnline: event.isOnline, ...(event.version ? { version: event.version } : {}), at: event.at.toISOString() });
    };
    // One writer at a time; it stops while the socket cannot take more (what arrives meanwhile is coalesced above).
    let writing = false;
    const write = async () => {
      if (writing) return;
      writing = true;
      try {
        for (;;) {
          if (raw.writableEnded || raw.destroyed) return pending.clear();
          if (raw.writableNeedDrain) return; // the 'drain' listener starts again
          const next = pending.entries().next();
          if (next.done) return;
          const [key, event] = next.value;
          pending.delete(key);
          const text = await render(event);
          if (!raw.writableEnded) raw.write(text);
        }
      } finally {
        writing = false;
      }
    };
    const listener = (event: StatusEvent) => {
      const key = `${event.kind}/${event.id}`;
      pending.delete(key);
      pending.set(key, event);
      void write();
    };
    raw.on('drain', () => void write());
    const end = () => {
      if (!raw.writableEnded) raw.end();
    };
    const unsubscribe = domains.statusEvents.subscribe(listener, end);
    const keepAlive = setInterval(() => {
      // The session's end is checked as the stream is kept alive: an ended session ends its stream.
      if (auth!.expiresAt.getTime() <= Date.now()) end();
      else raw.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    const cleanup = () => {
      clearInterval(keepAlive);
      unsubscribe();
      const left = (open.get(identityId) ?? 1) - 1;
      if (left > 0) open.set(identityId, left);
      else open.delete(identityId);
    };
    raw.on('close', cleanup);
    request.raw.on('close', end);
    return undefined;
  },
});
