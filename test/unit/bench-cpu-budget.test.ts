/**
 * The benchmark's CPU accounting (scripts/bench/cpu-budget.mjs): the README's login figures say how much of a login's
 * CPU is the controller's and how much the database's and the load generator's, so each part must count what it
 * names, including the processes that ended during the run.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

interface Snapshot {
  main: number;
  controller: number;
  postgres: number | undefined;
  children: number;
}
interface Budget {
  cpuSnapshot(targets: { controllerPid: number; postgresPid?: number }): Snapshot;
  cpuPerUnit(before: Snapshot, after: Snapshot, units: number): { main: number; otherThreads: number; postgres: number | undefined; generator: number };
}

const budget = (await import(pathToFileURL(join(process.cwd(), 'scripts/bench/cpu-budget.mjs')).href)) as Budget;

/**
 * This thread's CPU time in ms, as the scheduler keeps it in nanoseconds (/proc/thread-self/schedstat): a source of
 * its own for the figure under test, which reads the tick-rounded /proc stat files.
 */
const threadCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;

/**
 * Spins until this thread has used `ms` more CPU. Not wall time, since the suite shares the cores with other files;
 * and not the process's CPU either, since V8's helper threads (the scavenger, the optimizing compiler) may use tens of
 * milliseconds of it meanwhile on a loaded machine, which is what the main-thread figure must leave out.
 */
function spinThreadCpu(ms: number): number {
  const start = threadCpuMs();
  for (;;) {
    const used = threadCpuMs() - start;
    if (used >= ms) return used;
  }
}
/** A node command line doing the same in a process of its own, then exiting. */
const spin = (ms: number) => `const s = process.cpuUsage(); for (;;) { const u = process.cpuUsage(s); if ((u.user + u.system) / 1000 >= ${ms}) break; }`;

test('the main thread and the process count the work done on this thread', () => {
  const before = budget.cpuSnapshot({ controllerPid: process.pid });
  const spun = spinThreadCpu(300);
  const after = budget.cpuSnapshot({ controllerPid: process.pid });
  // Each snapshot rounds down to a 10 ms tick, and the kernel may not yet have added the running slice to either.
  assert.ok(Math.abs(after.main - before.main - spun) <= 25, `main thread: ${after.main - before.main} ms for ${spun.toFixed(1)} ms spun`);
  assert.ok(after.controller - after.main >= 0, 'the process counts at least its main thread');
  assert.equal(after.postgres, undefined, 'no cluster, no PostgreSQL part');
  const per = budget.cpuPerUnit(before, after, 3);
  assert.ok(Math.abs(per.main - (after.main - before.main) / 3) < 1e-9);
});

test('a load generator counts once it has exited', async () => {
  const before = budget.cpuSnapshot({ controllerPid: process.pid });
  const child = spawn(process.execPath, ['-e', spin(300)], { stdio: 'ignore' });
  await once(child, 'exit');
  const after = budget.cpuSnapshot({ controllerPid: process.pid });
  assert.ok(after.children - before.children >= 250, `generator: ${after.children - before.children} ms`);
});

test('a process tree counts its running processes and the ones that ended under it', async () => {
  // A shell (the postmaster's stand-in) runs a spinning child (a backend) to its end, then waits to be read.
  const shell = spawn('/bin/sh', ['-c', `"${process.execPath}" -e "${spin(300)}"; echo ended; exec sleep 30`], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const start = budget.cpuSnapshot({ controllerPid: process.pid, postgresPid: shell.pid! });
    const [chunk] = (await once(shell.stdout, 'data')) as [Buffer];
    assert.equal(String(chunk).trim(), 'ended');
    const end = budget.cpuSnapshot({ controllerPid: process.pid, postgresPid: shell.pid! });
    assert.ok(end.postgres! - start.postgres! >= 250, `tree: ${end.postgres! - start.postgres!} ms`);
    assert.ok(end.children - start.children < 150, 'what ran under the shell is not this process’s generator');
  } finally {
    shell.kill('SIGKILL');
    await once(shell, 'exit');
  }
});
