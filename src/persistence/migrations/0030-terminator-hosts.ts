/**
 * An index on `terminators.host_id` (issue 42): SDK-bound terminators are read by their host when an identity's
 * attributes change (does it still have Bind access?) and as a set after a policy change, so neither read walks
 * the terminators administrators made.
 */
import type { Kysely, Migration } from 'kysely';

export const terminatorHosts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('terminators_host').on('terminators').column('host_id').execute();
  },
};
