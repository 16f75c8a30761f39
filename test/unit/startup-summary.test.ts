/**
 * The store as the controller's startup line names it: where it is, never its password.
 *
 * @store-independent: it formats store addresses given to it, and opens none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStore } from '../../src/app/startup-summary.js';
import { chooseLogFormat, logFormatProblem } from '../../src/cli/logger.js';

describe('the startup line', () => {
  it('names a PostgreSQL store by user, host, port and database, without the password', () => {
    const text = describeStore({ kind: 'postgres', url: 'postgres://svc:s3cret-pw@db.example:5433/svc_prod?sslmode=require' });
    assert.equal(text, 'postgres svc@db.example:5433/svc_prod');
    assert.ok(!text.includes('s3cret-pw'));
  });

  it('names a SQLite store by its file', () => {
    assert.equal(describeStore({ kind: 'sqlite', path: '/var/lib/svc/svc.db' }), 'sqlite /var/lib/svc/svc.db');
  });
});

describe('the log format', () => {
  it('is text on a terminal and JSON otherwise, unless asked for', () => {
    assert.equal(chooseLogFormat(undefined, true), 'text');
    assert.equal(chooseLogFormat('', false), 'json');
    assert.equal(chooseLogFormat('json', true), 'json');
    assert.equal(chooseLogFormat('text', false), 'text');
  });

  it('names a bad SVC_LOG_FORMAT and the accepted values; a good or unset one is fine', () => {
    assert.equal(logFormatProblem('pretty'), "SVC_LOG_FORMAT: 'pretty' is not a log format; expected json or text");
    assert.equal(logFormatProblem('json'), undefined);
    assert.equal(logFormatProblem(undefined), undefined);
  });
});
