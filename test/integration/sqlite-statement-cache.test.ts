/**
 * The prepared-statement cache in front of better-sqlite3: statements are reused for the same SQL text, values are
 * bound per call, and the cache stays within its capacity.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import SqliteDriver from 'better-sqlite3';
import { withStatementCache } from '../../src/persistence/sqlite-statement-cache.js';

describe('the SQLite statement cache', () => {
  it('reuses one statement per SQL text and binds fresh values each call', () => {
    const driver = new SqliteDriver(':memory:');
    const db = withStatementCache(driver);
    driver.exec('create table t (id integer primary key, name text)');
    const insert = db.prepare('insert into t (id, name) values (?, ?)');
    assert.equal(db.prepare('insert into t (id, name) values (?, ?)'), insert);
    insert.run([1, 'one']);
    insert.run([2, 'two']);
    const select = db.prepare('select name from t where id = ?');
    assert.deepEqual(select.all([2]), [{ name: 'two' }]);
    assert.deepEqual(db.prepare('select name from t where id = ?').all([1]), [{ name: 'one' }]);
    db.close();
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const driver = new SqliteDriver(':memory:');
    const db = withStatementCache(driver, 2);
    const a = db.prepare('select 1');
    db.prepare('select 2');
    assert.equal(db.prepare('select 1'), a, 'a is now the most recent');
    db.prepare('select 3');
    assert.equal(db.prepare('select 1'), a, 'select 2 was dropped, not select 1');
    assert.notEqual(db.prepare('select 2'), undefined);
    db.close();
  });
});
