/**
 * Posture checks in the store. The type's own fields are one JSON document (`body`), always read and written whole;
 * it also holds the check's `version`, which every stored change moves on by one (the migration has no column for
 * it, and clients only read it). The role attribute index follows every write (the table's `dependents`).
 */
import { POSTURE_CHECK_TYPE_FIELDS, type PostureCheck, type PostureCheckBody } from '../../domain/posture-check.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { PostureChecksTable } from '../tables.js';
import { indexAttributes, unindexEntity } from './role-index.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the posture check list. */
export const POSTURE_CHECK_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  typeId: { column: 'type_id', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  roleAttributes: { column: 'role_attributes', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

type StoredBody = Record<string, unknown> & { version?: number };

/** A stored row as the domain's posture check (also read whole by the service reach index's source). */
export function postureCheckFromRow(row: PostureChecksTable): PostureCheck {
  const { version, ...fields } = parseJson<StoredBody>(row.body);
  return {
    ...(fields as Omit<PostureCheckBody, 'typeId'>),
    typeId: row.type_id,
    id: row.id,
    name: row.name,
    roleAttributes: parseJson(row.role_attributes),
    tags: parseJson(row.tags),
    version: version ?? 1,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  } as PostureCheck;
}

function toRow(check: PostureCheck): PostureChecksTable {
  const { id, name, typeId, roleAttributes, tags, createdAt, updatedAt } = check;
  // Only the fields of the check's type: a check whose type changed keeps nothing of the old one.
  const own = check as unknown as Record<string, unknown>;
  const fields = Object.fromEntries(POSTURE_CHECK_TYPE_FIELDS[typeId].map((key) => [key, own[key]]).filter(([, value]) => value !== undefined));
  return {
    id,
    name,
    type_id: typeId,
    role_attributes: JSON.stringify(roleAttributes),
    body: JSON.stringify({ ...fields, version: check.version }),
    tags: JSON.stringify(tags),
    created_at: toIso(createdAt),
    updated_at: toIso(updatedAt),
  };
}

/** How posture checks are stored. */
export const POSTURE_CHECK_TABLE: ResourceTable<'posture_checks', PostureCheck> = {
  table: 'posture_checks',
  changeLog: 'posture-check',
  fields: POSTURE_CHECK_FIELDS,
  fromRow: postureCheckFromRow,
  toRow,
  dependents: {
    written: (db, check) => indexAttributes(db, 'posture-check', check.id, check.roleAttributes),
    deleted: (db, id) => unindexEntity(db, 'posture-check', id),
  },
};

export function createPostureCheckRepository(database: Database): ResourceRepository<PostureCheck> {
  const generic = resourceRepository(database, POSTURE_CHECK_TABLE);
  return {
    ...generic,
    // A change is a new version of the check: the entity given carries the version it was read with.
    update: (check) => generic.update({ ...check, version: check.version + 1 }),
  };
}
