/**
 * Router presence (issue 41, must-have 5; docs/decisions/0064-router-presence.md): one row per edge router that has
 * ever connected, naming the controller its control channel was last up at and what its hello reported. A router is
 * online while its row is not released and that controller's heartbeat is fresh, so a controller killed without a
 * word takes its routers offline with it, and no per-router heartbeat is written.
 */
import type { Kysely, Migration } from 'kysely';

export const routerPresence: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('router_presence')
      // A deleted router's presence goes with it.
      .addColumn('router_id', 'text', (c) => c.primaryKey().references('edge_routers.id').onDelete('cascade'))
      /** `controllers.id` of the controller the router last connected to (no foreign key: controllers are never deleted). */
      .addColumn('controller_id', 'text', (c) => c.notNull())
      .addColumn('connected_at', 'text', (c) => c.notNull())
      /** Null while the channel is up at `controller_id`; the time it closed (or that controller restarted) otherwise. */
      .addColumn('disconnected_at', 'text')
      .addColumn('hostname', 'text', (c) => c.notNull())
      /** JSON {version, revision, buildDate, os, arch}. */
      .addColumn('version_info', 'text', (c) => c.notNull())
      /** JSON protocol -> `<proto>://<host>:<port>`. */
      .addColumn('supported_protocols', 'text', (c) => c.notNull())
      /** JSON array of strings. */
      .addColumn('capabilities', 'text', (c) => c.notNull())
      .execute();
    // clearOwn at a controller's start finds its rows without reading every router's.
    await db.schema.createIndex('router_presence_controller').on('router_presence').column('controller_id').execute();
  },
};
