/**
 * Several controllers on one store (issue 17, must-have 3; docs/decisions/0034-several-controllers.md): every signing
 * key names the controller that signs with it and the issuers that controller signs for, so that one controller's
 * key rotation retires only its own keys and every controller can verify, and publish, every other one's; and every
 * controller row carries the time of its latest heartbeat, from which `isOnline` is read.
 */
import type { Kysely, Migration } from 'kysely';

export const severalControllers: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('oidc_signing_keys')
      /**
       * The name of the controller signing with the key (its server certificate's subject, as in `controllers.name`);
       * null for keys published before this migration, which the next controller to start retires as its own.
       */
      .addColumn('owner', 'text')
      .execute();
    await db.schema
      .alterTable('oidc_signing_keys')
      /** JSON array of every `iss` value the owner signs tokens for (its OIDC issuers and its API address). */
      .addColumn('issuers', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    /** ISO time of the controller's latest heartbeat; null until its first one. */
    await db.schema.alterTable('controllers').addColumn('last_heartbeat_at', 'text').execute();
  },
};
