/**
 * The authorization change log (issue 14; docs/decisions/0028-service-reach-index.md): one row per change to an
 * entity the policy engine reads (a service, a policy, an identity's attributes, …), numbered in commit order. Every
 * controller sharing the store keeps its in-memory index of who reaches which services current by reading the rows
 * after the last number it applied, so a change made on one controller shows in the next answer of every other.
 * `entity_type` '*' means "many rows changed at once" (a bulk load): readers rebuild their index.
 */
import { PostgresAdapter, type Kysely, type Migration } from 'kysely';

export const authorizationChanges: Migration = {
  async up(db: Kysely<any>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await db.schema
      .createTable('authorization_changes')
      // SQLite's AUTOINCREMENT never reuses a number, even after the newest row is deleted by pruning.
      .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'text', (c) => c.notNull())
      .execute();
  },
};
