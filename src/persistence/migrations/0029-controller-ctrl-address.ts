/**
 * The control-plane address of each controller (issue 41; decision 0062): `tls:host:port` that routers dial, or null
 * for a controller without `ctrl.listener`. Routers learn the addresses of every online controller from the one they
 * are connected to, and keep them in their endpoints file; `GET /controllers` shows it as `ctrlAddress`.
 */
import type { Kysely, Migration } from 'kysely';

export const controllerCtrlAddress: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('controllers').addColumn('ctrl_address', 'text').execute();
  },
};
