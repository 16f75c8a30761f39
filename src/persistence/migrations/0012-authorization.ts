/**
 * The authorization model (issue 14; docs/decisions/0025-authorization-model.md): config types and configs,
 * services, edge routers, posture checks, terminators, the three kinds of policy, and two index tables the policy
 * engine reads instead of expanding policies into pairs:
 * - `entity_attributes`: one row per (entity type, attribute, entity), the role attributes of identities, services,
 *   edge routers and posture checks, so "which entities have #a" is an index range;
 * - `policy_roles`: one row per role of a policy side (`#all`, `#attribute`, `@id`), so "which policies name #a or
 *   @x on their identity side" is an index range.
 * Identities gain their hosting defaults. Existing identities' attributes are copied into the index.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** id, name (unique), tags and timestamps: the columns of every managed resource. */
function resource(db: Kysely<any>, table: string) {
  return db.schema
    .createTable(table)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
}

export const authorization: Migration = {
  async up(db: Kysely<any>) {
    await resource(db, 'config_types')
      /** The JSON Schema configs of this type must satisfy (JSON text). */
      .addColumn('schema', 'text', (c) => c.notNull())
      .execute();

    await resource(db, 'configs')
      .addColumn('config_type_id', 'text', (c) => c.notNull().references('config_types.id'))
      /** JSON object. */
      .addColumn('data', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('configs_config_type').on('configs').column('config_type_id').execute();

    await resource(db, 'services')
      .addColumn('role_attributes', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('encryption_required', 'boolean', (c) => c.notNull().defaultTo(sql.lit(true)))
      .addColumn('max_idle_time_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('terminator_strategy', 'text', (c) => c.notNull().defaultTo('smartrouting'))
      .execute();

    // At most one config of a type per service: the unique key is the rule.
    await db.schema
      .createTable('service_configs')
      .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
      .addColumn('config_type_id', 'text', (c) => c.notNull().references('config_types.id'))
      .addColumn('config_id', 'text', (c) => c.notNull().references('configs.id'))
      .addPrimaryKeyConstraint('service_configs_pk', ['service_id', 'config_type_id'])
      .execute();
    await db.schema.createIndex('service_configs_config').on('service_configs').column('config_id').execute();

    await resource(db, 'edge_routers')
      .addColumn('role_attributes', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('is_tunneler_enabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('cost', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('no_traversal', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('disabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      /** JSON object. */
      .addColumn('app_data', 'text', (c) => c.notNull().defaultTo('{}'))
      /** Set once the router has enrolled: its certificate's SHA-1 fingerprint and PEM. */
      .addColumn('fingerprint', 'text')
      .addColumn('cert_pem', 'text')
      .addColumn('is_verified', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      /** The pending one-time enrollment: SHA-256 of its token, the JWT shown on the detail, and its expiry. */
      .addColumn('enrollment_token_hash', 'text')
      .addColumn('enrollment_jwt', 'text')
      .addColumn('enrollment_expires_at', 'text')
      /** JSON: what the router reported when it last connected (listeners, version); `{}` until then. */
      .addColumn('connection', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.createIndex('edge_routers_enrollment').on('edge_routers').column('enrollment_token_hash').execute();

    await resource(db, 'posture_checks')
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('role_attributes', 'text', (c) => c.notNull().defaultTo('[]'))
      /** JSON object: the fields of the check's type. */
      .addColumn('body', 'text', (c) => c.notNull())
      .execute();

    await resource(db, 'service_policies')
      /** `Dial` or `Bind`. */
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('semantic', 'text', (c) => c.notNull())
      .addColumn('identity_roles', 'text', (c) => c.notNull())
      .addColumn('service_roles', 'text', (c) => c.notNull())
      .addColumn('posture_check_roles', 'text', (c) => c.notNull())
      .execute();

    await resource(db, 'edge_router_policies')
      .addColumn('semantic', 'text', (c) => c.notNull())
      .addColumn('identity_roles', 'text', (c) => c.notNull())
      .addColumn('edge_router_roles', 'text', (c) => c.notNull())
      /** The policy a tunneler-enabled router gets for its own identity; not editable. */
      .addColumn('is_system', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .execute();

    await resource(db, 'service_edge_router_policies')
      .addColumn('semantic', 'text', (c) => c.notNull())
      .addColumn('service_roles', 'text', (c) => c.notNull())
      .addColumn('edge_router_roles', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('terminators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
      .addColumn('router_id', 'text', (c) => c.notNull().references('edge_routers.id').onDelete('cascade'))
      .addColumn('binding', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('identity', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('identity_secret', 'text')
      .addColumn('cost', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('precedence', 'text', (c) => c.notNull().defaultTo('default'))
      /** The hosting identity, when an SDK bound it. */
      .addColumn('host_id', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('terminators_service').on('terminators').column('service_id').execute();
    await db.schema.createIndex('terminators_router').on('terminators').column('router_id').execute();

    await db.schema
      .createTable('entity_attributes')
      /** `identity`, `service`, `edge-router` or `posture-check`. */
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('attribute', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('entity_attributes_pk', ['entity_type', 'attribute', 'entity_id'])
      .execute();
    await db.schema.createIndex('entity_attributes_entity').on('entity_attributes').columns(['entity_type', 'entity_id']).execute();

    await db.schema
      .createTable('policy_roles')
      /** `service-policy`, `edge-router-policy` or `service-edge-router-policy`. */
      .addColumn('policy_type', 'text', (c) => c.notNull())
      /** Which role list: `identity`, `service`, `edge-router` or `posture-check`. */
      .addColumn('side', 'text', (c) => c.notNull())
      /** `all`, `attribute` or `id`. */
      .addColumn('kind', 'text', (c) => c.notNull())
      /** The attribute or id; '' for `all`. */
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('policy_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('policy_roles_pk', ['policy_type', 'side', 'kind', 'value', 'policy_id'])
      .execute();
    await db.schema.createIndex('policy_roles_policy').on('policy_roles').column('policy_id').execute();

    await db.schema.alterTable('identities').addColumn('default_hosting_precedence', 'text', (c) => c.notNull().defaultTo('default')).execute();
    await db.schema.alterTable('identities').addColumn('default_hosting_cost', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    /** JSON objects: service id -> precedence, service id -> cost. */
    await db.schema.alterTable('identities').addColumn('service_hosting_precedences', 'text', (c) => c.notNull().defaultTo('{}')).execute();
    await db.schema.alterTable('identities').addColumn('service_hosting_costs', 'text', (c) => c.notNull().defaultTo('{}')).execute();

    // Identities created before this migration: their attributes into the index.
    const identities = await db.selectFrom('identities').select(['id', 'role_attributes']).execute();
    for (const identity of identities as Array<{ id: string; role_attributes: string }>) {
      const attributes = [...new Set(JSON.parse(identity.role_attributes) as string[])];
      if (attributes.length === 0) continue;
      await db
        .insertInto('entity_attributes')
        .values(attributes.map((attribute) => ({ entity_type: 'identity', attribute, entity_id: identity.id })))
        .execute();
    }
  },
};
