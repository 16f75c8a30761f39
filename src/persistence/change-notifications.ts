/**
 * The cross-controller signal of the change feed on PostgreSQL (decision 0035): one connection of its own that
 * LISTENs on the change channel, so a change committed by another controller is read within milliseconds rather than
 * at the next poll. It is only a signal: a lost connection loses nothing (the feed also polls the log), and it
 * reconnects by itself, announcing each (re)connection so the reader catches up on what it may have missed.
 */
import pg from 'pg';
import { CHANGE_CHANNEL } from './repositories/authorization-changes.js';

export interface ChangeNotifications {
  close(): Promise<void>;
}

/** How long to wait before connecting again after the connection failed or was ended. */
const RETRY_MS = 500;

/** @example const notices = listenForChanges(url, { onNotice: () => feed.poke(), onError: (e) => log.warn(e) }); */
export function listenForChanges(url: string, handlers: { onNotice(): void; onError(error: Error): void }): ChangeNotifications {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const again = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RETRY_MS);
    retry.unref();
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    client = next;
    next.on('notification', () => handlers.onNotice());
    next.on('error', (error) => {
      handlers.onError(error);
      void next.end().catch(() => undefined);
      again();
    });
    next.on('end', again);
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (closed) await next.end();
      // Whatever was announced while no connection listened is in the log: read it now.
      else handlers.onNotice();
    } catch (error) {
      handlers.onError(error as Error);
      void next.end().catch(() => undefined);
      again();
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
