/**
 * Migration 0024 on a store an older release left: the audit trail numbered in the order it was written. Entries of
 * the same millisecond keep the order they were stored in, entries are numbered by their time first, every column comes
 * through, ids stay unique, and entries written afterwards follow the old ones.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/persistence/migrate.js';
import { createAuditLogRepository } from '../../src/persistence/repositories/audit-log.js';
import { createAuditService } from '../../src/services/audit/audit.js';
import { manualClock } from '../../src/shared/clock.js';
import { storeBefore, testDialect } from '../helpers/database.js';
import type { Database } from '../../src/persistence/database.js';

const MIGRATION = '0024-audit-log-sequence';
const base = Date.now();
const at = (ms: number) => new Date(base + ms).toISOString();
const entry = (id: string, action: string, createdAt: string) => ({
  id,
  actor_id: 'admin-id',
  actor_name: 'admin',
  action,
  entity_type: 'edge-router',
  entity_id: 'router-1',
  details: JSON.stringify({ step: id }),
  created_at: createdAt,
});

// Written in this order. "re-enroll" and "delete" share a millisecond; "late-clock" was written last but carries
// an earlier time (another controller's clock), so it is numbered by its time.
const written = [entry('e-create', 'create', at(0)), entry('e-reenroll', 're-enroll', at(5)), entry('e-delete', 'delete', at(5)), entry('e-late-clock', 'update', at(2))];

describe(`migration ${MIGRATION} (${testDialect})`, () => {
  let raw: Kysely<any>;
  let close: () => Promise<void>;
  before(async () => {
    ({ raw, close } = await storeBefore(MIGRATION));
    for (const row of written) await raw.insertInto('audit_log').values(row).execute();
    await migrateToLatest(raw);
  });
  after(() => close());

  const sequenceOf = async () =>
    (await raw.selectFrom('audit_log').select(['id', 'seq']).orderBy('seq').execute()).map((row) => [row.id, Number(row.seq)]);

  it('numbers the stored entries by their time, then by the order they were written in, keeping every column', async () => {
    assert.deepEqual(await sequenceOf(), [['e-create', 1], ['e-late-clock', 2], ['e-reenroll', 3], ['e-delete', 4]]);
    const rows = await raw.selectFrom('audit_log').selectAll().orderBy('id').execute();
    assert.deepEqual(
      rows.map(({ seq: _seq, ...row }) => row),
      [...written].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('numbers entries written afterwards after the old ones, and still refuses an id twice', async () => {
    const repository = createAuditLogRepository({ db: raw, dialect: testDialect } as unknown as Database);
    const sameInstant = new Date(base + 5);
    for (const id of ['e-new-1', 'e-new-2']) {
      await repository.append({ id, actor: { id: null, name: 'system' }, action: 'update', entityType: 'edge-router', entityId: 'router-1', details: {}, createdAt: sameInstant });
    }
    const numbers = await sequenceOf();
    assert.deepEqual(numbers.slice(4), [['e-new-1', 5], ['e-new-2', 6]]);
    await assert.rejects(raw.insertInto('audit_log').values(entry('e-create', 'create', at(9))).execute(), /UNIQUE constraint failed|duplicate key value/);

    // The trail as listed, newest first: the latest written of the same millisecond comes first.
    const page = await createAuditService({ auditLog: repository, clock: manualClock(new Date()) }).list({});
    assert.deepEqual(
      page.items.map((item) => [item.id, item.sequence]),
      [['e-new-2', 6], ['e-new-1', 5], ['e-delete', 4], ['e-reenroll', 3], ['e-late-clock', 2], ['e-create', 1]],
    );
  });
});
