/**
 * A password on the command line is readable by every user of the machine (issue 40, point 11): each option that takes
 * one (`-p`/`--password`, `--admin-password`) warns on stderr before its command runs, naming the option and the
 * ways to keep the secret off the command line; the same commands given the password another way say nothing of it.
 * The commands run in process and stop at a missing file or a bad port, so nothing is created or contacted.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-argv-secrets-'));
const missing = (name: string) => join(dir, name);

async function run(argv: string[]) {
  const errors: string[] = [];
  const code = await main(argv, { print: () => {}, error: (line) => errors.push(line) });
  return { code, warnings: errors.filter((line) => line.startsWith('svc: warning:')), errors };
}

const WHY = 'puts the password on the command line, where other users of this machine can read it (ps, /proc) and the shell history keeps it';

describe('a password given on the command line', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<{ name: string; argv: string[]; option: string; instead: string }> = [
    { name: 'quickstart', argv: ['quickstart', '--home', missing('home'), '--port', 'notaport', '--admin-password', 'pw-secret'], option: '--admin-password', instead: 'SVC_ADMIN_PASSWORD' },
    { name: 'controller create-admin', argv: ['controller', 'create-admin', '--config', missing('c.yml'), '--admin-user', 'admin', '--admin-password', 'pw-secret'], option: '--admin-password', instead: 'SVC_ADMIN_PASSWORD' },
    { name: 'edge login', argv: ['edge', 'login', 'https://127.0.0.1:9', '-u', 'admin', '-p', 'pw-secret', '--ca', missing('ca.pem')], option: '-p/--password', instead: '--password-stdin, SVC_ADMIN_PASSWORD or the prompt' },
    { name: 'edge enroll', argv: ['edge', 'enroll', missing('id.jwt'), '--password', 'pw-secret'], option: '-p/--password', instead: '--password-stdin or the prompt' },
    { name: 'ext-jwt check', argv: ['ext-jwt', 'check', '--controller', 'https://127.0.0.1:9', '--signer', 's', '--token', 't', '--username', 'admin', '--password', 'pw-secret', '--ca', missing('ca.pem')], option: '--password', instead: 'SVC_ADMIN_PASSWORD' },
  ];

  for (const { name, argv, option, instead } of cases) {
    it(`makes ${name} warn on stderr, naming ${option} and the safer ways, and never echo the password`, async () => {
      const { code, warnings, errors } = await run(argv);
      assert.deepEqual(warnings, [`svc: warning: ${option} ${WHY}; use ${instead} instead`]);
      assert.notEqual(code, 0, 'the command still runs, and stops at the missing file or bad value');
      assert.ok(!errors.some((line) => line.includes('pw-secret')), errors.join('\n'));
    });
  }

  it('says nothing of it when the password comes from the environment', async () => {
    const before = process.env.SVC_ADMIN_PASSWORD;
    process.env.SVC_ADMIN_PASSWORD = 'pw-secret';
    try {
      const { code, warnings } = await run(['controller', 'create-admin', '--config', missing('c.yml'), '--admin-user', 'admin']);
      assert.deepEqual(warnings, []);
      assert.equal(code, 1, 'it got as far as reading the config');
    } finally {
      if (before === undefined) delete process.env.SVC_ADMIN_PASSWORD;
      else process.env.SVC_ADMIN_PASSWORD = before;
    }
  });
});
