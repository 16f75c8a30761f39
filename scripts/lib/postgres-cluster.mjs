// A throwaway PostgreSQL cluster for the test suite and the benchmarks: initdb and pg_ctl (as the `postgres` user
// when run as root) in a temporary folder, on a free loopback port, without fsync; `stop()` removes it all.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The newest installed PostgreSQL's bin folder, or undefined. */
export function findPostgresBin() {
  // Where the versions are installed (Debian's layout); SVC_TEST_POSTGRES_ROOT names another folder (the runner's own
  // test points it at an empty one to see a run without PostgreSQL).
  const base = process.env.SVC_TEST_POSTGRES_ROOT || '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  return undefined;
}

function asPostgresUser(command) {
  const isRoot = process.getuid?.() === 0;
  const result = isRoot
    ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' })
    : spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command}\n${result.stdout}${result.stderr}`);
}

/** Starts a cluster with the binaries in `bin`; resolves with its URL and a stop function. */
export async function startThrowawayCluster(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), 0);
  const port = await freePort();
  asPostgresUser(`${bin}/initdb -D ${dir}/data -A trust -U postgres --no-sync >/dev/null`);
  asPostgresUser(
    `${bin}/pg_ctl -D ${dir}/data -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" -l ${dir}/pg.log -w start >/dev/null`,
  );
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** The postmaster's process id (its backends run under it): for the benchmark's CPU accounting. */
    get pid() {
      return Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    },
    stop() {
      try {
        asPostgresUser(`${bin}/pg_ctl -D ${dir}/data -m fast -w stop >/dev/null`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

