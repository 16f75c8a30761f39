/**
 * Writing several files as one change: each new content goes to a temporary file beside its target (same folder, so
 * the rename cannot cross file systems), and only when every temporary file is written are they renamed over the
 * targets. A failure before the renames removes the temporary files and leaves every target as it was. The renames
 * themselves are the only window: rename(2) within a folder does not fail for want of space or permission once the
 * temporary file exists there, so in practice the set lands whole.
 *
 * Staging is split from committing so a caller can prove the folders writable before it spends something that
 * cannot be spent twice (an enrollment token).
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { reasonOf } from '../shared/system-errors.js';
import { RouterSetupError } from './errors.js';

export interface FileToWrite {
  /** Absolute path of the target. */
  readonly path: string;
  /** What the operator calls it in messages, e.g. `identity.key /etc/router/key.pem`. */
  readonly label: string;
  /** 0o600 for keys; 0o644 for certificates. */
  readonly mode: number;
}

export interface StagedFiles {
  /** Writes the contents (by target path) into the temporary files and renames them all over their targets. */
  commit(contents: ReadonlyMap<string, string>): Promise<void>;
  /** Removes the temporary files; the targets are untouched. Safe to call after commit or twice. */
  discard(): Promise<void>;
}

/**
 * Creates an empty temporary file beside each target, proving each folder exists and is writable. Throws
 * RouterSetupError naming the first file that cannot be staged (nothing is left behind then).
 */
export async function stageFiles(files: readonly FileToWrite[]): Promise<StagedFiles> {
  const temps = new Map<string, string>();
  const discard = async () => {
    await Promise.all([...temps.values()].map((temp) => rm(temp, { force: true })));
    temps.clear();
  };
  for (const file of files) {
    const temp = join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // `wx`: never follow or reuse something already there; the mode is set at creation, so a key is never readable by others.
      const handle = await open(temp, 'wx', file.mode);
      await handle.close();
      temps.set(file.path, temp);
    } catch (error) {
      await discard();
      throw new RouterSetupError(`${file.label}: cannot write in the folder ${dirname(file.path)} (${reasonOf(error)}); nothing was written`);
    }
  }
  return {
    async commit(contents) {
      try {
        for (const file of files) {
          const handle = await open(temps.get(file.path) as string, 'w', file.mode);
          try {
            await handle.writeFile(contents.get(file.path) ?? '');
            await handle.sync();
          } finally {
            await handle.close();
          }
        }
      } catch (error) {
        await discard();
        throw new RouterSetupError(`writing the new files failed (${reasonOf(error)}); nothing was changed`);
      }
      for (const file of files) await rename(temps.get(file.path) as string, file.path);
      temps.clear();
    },
    discard,
  };
}

/** Stages and commits in one step, for callers with nothing to do in between. */
export async function writeFilesAtomically(files: ReadonlyArray<FileToWrite & { content: string }>): Promise<void> {
  const staged = await stageFiles(files);
  await staged.commit(new Map(files.map((file) => [file.path, file.content])));
}
