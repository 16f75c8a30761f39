/**
 * Opens the live status stream (`GET /edge/management/v1/events/status`) of a test controller and parses its events
 * as they arrive (issue 45).
 */
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import type { TestController } from './controller.js';
import { MANAGEMENT } from './management.js';

export interface StatusStream {
  status: number;
  headers: Record<string, unknown>;
  events: { event: string; data: any }[];
  text: () => string;
  ended: Promise<void>;
  close(): void;
}

/** The stream; `query` is added to the URL as it is. */
export function openStatusStream(ctl: Pick<TestController, 'baseUrl' | 'ca'>, token: string | undefined, query = ''): Promise<StatusStream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const events: StatusStream['events'] = [];
    const req: ClientRequest = request(`${ctl.baseUrl}${MANAGEMENT}/events/status${query}`, { ca: ctl.ca, headers: token ? { 'svc-session': token } : {} }, (res) => {
      let ended: () => void;
      const endedPromise = new Promise<void>((r) => (ended = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (;;) {
          const at = text.indexOf('\n\n');
          if (at < 0) break;
          const block = text.slice(0, at);
          text = text.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      });
      res.on('end', () => ended());
      res.on('close', () => ended());
      resolve({ status: res.statusCode ?? 0, headers: res.headers, events, text: () => text, ended: endedPromise, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The identity events of `identityId` in the stream so far, as `hasApiSession` values in order. */
export const identityStates = (stream: StatusStream, identityId: string): boolean[] =>
  stream.events.filter((e) => e.event === 'identity' && e.data.id === identityId).map((e) => e.data.hasApiSession as boolean);
