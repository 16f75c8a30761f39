/**
 * The change feed's builder (decision 0035): reads the store's change log, with PostgreSQL's LISTEN/NOTIFY as the
 * signal between controllers; on SQLite, one controller per store, its own commits are all there is to hear of and
 * the poll only keeps `fresh()` honest.
 */
import type { Logger } from 'pino';
import { listenForChanges } from '../../persistence/change-notifications.js';
import type { Database, DatabaseTarget } from '../../persistence/database.js';
import { createAuthorizationChangeLog } from '../../persistence/repositories/authorization-changes.js';
import { startChangeFeed, type ChangeFeed } from './change-feed.js';

export type { ChangeFeed, FeedEvent } from './change-feed.js';

export async function buildChangeFeed(
  database: Database,
  deps: { target: DatabaseTarget; log: Logger; onLag?(seconds: number): void; pollMs?: number; boundMs?: number },
): Promise<ChangeFeed> {
  const { target, log } = deps;
  return startChangeFeed({
    log: createAuthorizationChangeLog(database),
    signal: database.changes,
    ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
    ...(deps.boundMs ? { boundMs: deps.boundMs } : {}),
    ...(target.kind === 'postgres'
      ? { listen: (onNotice: () => void) => listenForChanges(target.url, { onNotice, onError: (error) => log.warn({ err: error }, 'the change notification connection failed; reconnecting (changes are still polled)') }) }
      : {}),
    onError: (error) => log.warn({ err: error }, 'the change log could not be read; cached authentication is not served until it can'),
    ...(deps.onLag ? { onLag: deps.onLag } : {}),
  });
}
