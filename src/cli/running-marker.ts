/**
 * The note a running quickstart leaves in its home (`running.json`: pid and URLs), so that a second quickstart on the
 * same home says at once that a controller runs there and where, instead of failing later on a port or the store. A
 * note whose process has gone (killed, machine restarted) is stale and ignored.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RunningNote {
  pid: number;
  urls: string[];
}

const noteFile = (home: string) => join(home, 'running.json');

/** Whether a process with `pid` exists (signal 0 only checks; EPERM means it exists under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The controller running on `home` by its note, or undefined when none is (no note, unreadable, or stale). */
export function runningOn(home: string): RunningNote | undefined {
  let note: RunningNote;
  try {
    note = JSON.parse(readFileSync(noteFile(home), 'utf8')) as RunningNote;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(note.pid) || note.pid === process.pid || !alive(note.pid)) return undefined;
  return { pid: note.pid, urls: Array.isArray(note.urls) ? note.urls.map(String) : [] };
}

/** Leaves the note for this process; the returned function removes it (at stop). */
export function noteRunning(home: string, urls: string[]): () => void {
  writeFileSync(noteFile(home), `${JSON.stringify({ pid: process.pid, urls })}\n`, { mode: 0o600 });
  return () => rmSync(noteFile(home), { force: true });
}
