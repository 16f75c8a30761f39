// Where the CPU of a login goes, for `npm run bench`: the controller's main thread, its other threads (the argon2id
// pool and V8's helpers), the PostgreSQL cluster and the load generator, read from /proc (Linux) before and after a
// run. While logins keep both cores busy, logins/s is about cores / (CPU per login), so the ratio to the raw argon2id
// rate cannot pass (argon2id CPU per verify) / (CPU per login): these parts say how much of a login's CPU is ours and
// how much the machine's other tenants of the run (the database, the load generator) take.
import { readFileSync, readdirSync } from 'node:fs';

/** Linux clock ticks are 1/100 s. */
const TICK_MS = 10;

/** The fields of a /proc stat file after the command name: [0] is the state, [11..14] utime, stime, cutime, cstime. */
function statOf(path) {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' '); // the name may itself hold ") "
  } catch {
    return undefined; // the process or thread ended between the listing and the read
  }
}

const own = (fields) => (fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0);
/** CPU time (user + system, ms) a process has used so far, all its threads; 0 once it has ended. */
export const processCpuMs = (pid) => own(statOf(`/proc/${pid}/stat`));
const reaped = (fields) => (fields ? (Number(fields[13]) + Number(fields[14])) * TICK_MS : 0);

/**
 * CPU (ms) of `root` and every process under it, counting the ones already ended through their parents' reaped
 * time, so a backend that exits during the run still counts once.
 */
function treeMs(root) {
  const parentOf = new Map();
  const stats = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statOf(`/proc/${name}/stat`);
    if (!fields) continue;
    stats.set(Number(name), fields);
    parentOf.set(Number(name), Number(fields[1]));
  }
  const inTree = (pid) => {
    for (let p = pid; p > 1; p = parentOf.get(p) ?? 0) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const [pid, fields] of stats) if (inTree(pid)) total += own(fields) + reaped(fields);
  return total;
}

/**
 * The CPU used so far by the parts of a run: `controllerPid`'s main thread and whole process, the process tree under
 * `postgresPid` (when the store is a cluster of ours) and this process's ended children (the load generator, once
 * it has exited; so take the second snapshot after it has).
 */
export function cpuSnapshot({ controllerPid, postgresPid }) {
  return {
    main: own(statOf(`/proc/${controllerPid}/task/${controllerPid}/stat`)),
    controller: processCpuMs(controllerPid),
    postgres: postgresPid === undefined ? undefined : treeMs(postgresPid),
    children: reaped(statOf('/proc/self/stat')),
  };
}

/** CPU ms per unit (a login) of each part between two snapshots. */
export function cpuPerUnit(before, after, units) {
  const per = (a, b) => (a === undefined || b === undefined ? undefined : (b - a) / Math.max(1, units));
  const main = per(before.main, after.main);
  return {
    main,
    otherThreads: per(before.controller, after.controller) - main,
    postgres: per(before.postgres, after.postgres),
    generator: per(before.children, after.children),
  };
}

/** Runs `work` (resolving {units, …}) between two snapshots; resolves its result with `cpu` per unit. */
export async function withCpuPerUnit(targets, work) {
  const before = cpuSnapshot(targets);
  const result = await work();
  return { ...result, cpu: cpuPerUnit(before, cpuSnapshot(targets), result.units) };
}

/** The median of each part over runs (each part alone, so the parts need not add up to a run's total). */
export function medianCpu(runs, median) {
  const parts = ['main', 'otherThreads', 'postgres', 'generator'];
  return Object.fromEntries(parts.map((k) => [k, runs.some((r) => r[k] === undefined) ? undefined : median(runs.map((r) => r[k]))]));
}

/** One line: the parts of a login's CPU, what is not argon2id, and the ratio the CPU allows. */
export function describeBudget(cpu, argonMsPerVerify) {
  const f = (v) => (v === undefined ? 'n/a' : `${v.toFixed(2)}`);
  const total = cpu.main + cpu.otherThreads + (cpu.postgres ?? 0) + cpu.generator;
  const notArgon = total - argonMsPerVerify;
  return (
    `main ${f(cpu.main)} + other threads ${f(cpu.otherThreads)} + PostgreSQL ${f(cpu.postgres)} + load generator ${f(cpu.generator)}` +
    ` = ${f(total)} ms; not argon2id ${f(notArgon)} ms; CPU-bound ceiling ${(argonMsPerVerify / total).toFixed(2)}`
  );
}
