/**
 * Links and circuits (issue 43; docs/decisions/0070-links-and-circuits-at-the-controller.md):
 * - `links`: the router-to-router links each router reports having DIALED (LinkReport, sent whole), with their state
 *   and latency: the graph a dial's path is chosen over. A link goes with either of its routers;
 * - `circuits`: each circuit a dial decision opened, until its first router says it ended (CircuitsEnded,
 *   ReconcileCircuits) or the sweep forgets it (its first router offline too long). It goes with its first router;
 * - `router_presence.link_listeners`: the link listeners a router's Hello named (`[{advertise, groups}]`), which the
 *   Peers push sends to the other routers.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const linksAndCircuits: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('links')
      // The id the dialing router gave the link (unique across the network: routers make them random).
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('source_router_id', 'text', (c) => c.notNull().references('edge_routers.id').onDelete('cascade'))
      .addColumn('dest_router_id', 'text', (c) => c.notNull().references('edge_routers.id').onDelete('cascade'))
      /** `up` or `stalled`, as the dialing router reported. */
      .addColumn('state', 'text', (c) => c.notNull())
      /** Round trip of the last answered probe in milliseconds; null before the first. */
      .addColumn('latency_ms', 'double precision')
      .addColumn('dial_address', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // A router's report replaces its own links (by source); a deleted router's links go by either end.
    await db.schema.createIndex('links_source').on('links').column('source_router_id').execute();
    await db.schema.createIndex('links_dest').on('links').column('dest_router_id').execute();

    await db.schema
      .createTable('circuits')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // No foreign keys to the service, identity or terminator: a circuit records what was decided; they may go first.
      .addColumn('service_id', 'text', (c) => c.notNull())
      .addColumn('identity_id', 'text', (c) => c.notNull())
      .addColumn('api_session_id', 'text')
      .addColumn('terminator_id', 'text', (c) => c.notNull())
      .addColumn('ingress_router_id', 'text', (c) => c.notNull().references('edge_routers.id').onDelete('cascade'))
      .addColumn('egress_router_id', 'text', (c) => c.notNull())
      /** JSON array of router ids, first = ingress, last = egress. */
      .addColumn('path', 'text', (c) => c.notNull())
      /** JSON array of link ids; `links[i]` joins `path[i]` and `path[i+1]`. */
      .addColumn('links', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('circuits_ingress').on('circuits').column('ingress_router_id').execute();

    await db.schema.alterTable('router_presence').addColumn('link_listeners', 'text', (c) => c.notNull().defaultTo(sql.lit('[]'))).execute();
  },
};
