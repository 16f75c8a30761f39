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
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    raw.write(frame('hello', { at: new Date().toISOString(), events: ['router', 'identity'] }));

    // While the socket is full, the latest state of each router and identity waits here (one entry each, never more).
    const waiting = new Map<string, StatusEvent>();
    const keyOf = (event: StatusEvent) => `${event.kind}/${event.id}`;
    // Events are written in the order they happened, each with the router's name read as it is written.
    let written = Promise.resolve();
    const send = (event: StatusEvent) => {
      if (event.kind === 'identity') {
        const { id, name, hasApiSession, hasEdgeRouterConnection, at } = event;
        written = written.then(() => {
          if (!raw.writableEnded) raw.write(frame('identity', { id, ...(name === undefined ? {} : { name }), hasApiSession, hasEdgeRouterConnection, at: at.toISOString() }));
        });
        return;
      }
      written = written.then(async () => {
        const router = await domains.authorization.edgeRouters.get(event.id).catch(() => undefined);
        if (raw.writableEnded) return;
        const data = { id: event.id, name: router?.name ?? null, isOnline: event.isOnline, ...(event.version ? { version: event.version } : {}), at: event.at.toISOString() };
        raw.write(frame('router', data));
      });
    };
    const listener = (event: StatusEvent) => {
      if (raw.writableNeedDrain) waiting.set(keyOf(event), event);
      else send(event);
    };
    raw.on('drain', () => {
      const pending = [...waiting.values()];
      waiting.clear();
      for (const event of pending) send(event);
    });
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
