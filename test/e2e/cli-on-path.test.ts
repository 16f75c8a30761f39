/**
 * `svc` within reach after `npm ci`: the checkout's bin/ on the PATH (the README's one line) runs the command as every
 * example prints it, `npx svc` runs the linked node_modules/.bin/svc instead of installing the checkout into npm's
 * cache, and the completion script asks this checkout's entry, so it completes with or without `svc` on the PATH.
 * @store-independent: nothing here starts a controller or reads a store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';

const checkout = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
const temp = mkdtempSync(join(tmpdir(), 'svc-on-path-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A PATH with node's folder and the system's, and no `svc` anywhere on it. */
const bareSystemPath = `${join(process.execPath, '..')}:/usr/bin:/bin`;

function sh(script: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: temp, env: { HOME: temp, PATH: bareSystemPath, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('svc on the PATH', () => {
  it('runs as bare `svc` once the checkout’s bin/ is on the PATH, from any folder', async () => {
    const without = await sh('svc version');
    assert.notEqual(without.code, 0, 'the control: no svc on a bare PATH');
    const result = await sh(`export PATH="${checkout}/bin:$PATH"; svc version`);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^svc \d+\.\d+\.\d+ \(/);
  });

  it('links node_modules/.bin/svc at install, so npx runs it without installing the checkout into its cache', async () => {
    const link = join(checkout, 'node_modules', '.bin', 'svc');
    assert.equal(readlinkSync(link), join('..', '..', 'bin', 'svc.js'));
    const cache = join(temp, 'npm-cache');
    const result = await sh(`cd "${checkout}" && npx --no-install svc version`, { npm_config_cache: cache, npm_config_update_notifier: 'false' });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^svc \d+\.\d+\.\d+ \(/);
    assert.equal(existsSync(join(cache, '_npx')), false, 'npx installed the checkout into its cache instead of running the linked command');
  });
});

describe('svc completion', () => {
  it('completes through this checkout’s entry when `svc` is not on the PATH', async () => {
    const script = await runCli(['completion', 'bash']);
    assert.equal(script.code, 0, script.stderr);
    const file = join(temp, 'svc-completion.bash');
    writeFileSync(file, script.stdout);
    const completed = await sh(`source "${file}"; COMP_WORDS=(svc edge cre); COMP_CWORD=2; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`);
    assert.equal(completed.code, 0, completed.stderr);
    assert.equal(completed.stdout, 'create\n');
  });

  it('names node and the entry by absolute path, each quoted for the shell', async () => {
    const script = (await runCli(['completion', 'zsh'])).stdout;
    assert.match(script, new RegExp(`'${process.execPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' '[^']*/bin/svc\\.js' __complete`));
  });
});
