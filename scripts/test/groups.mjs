// Several small test files in one process (decision 0088). Every test process of the suite first loads the controller's
// ~1,300 modules, about 1 to 1.8 s of CPU, and most unit and integration files then run for less than that: on a
// two-core machine, the loading was a third of the suite. A group file imports a handful of compiled test files, so
// they share one load; node --test runs it like any other file. With static imports every member is evaluated before
// any test starts, so a member's top-level hooks still run around its tests (and its `after` at the group's end).
// A file that needs a process of its own (it changes process-wide state and does not put it back, or measures the
// process) carries OWN_PROCESS in its header; files outside GROUPED_TREES always run alone: they start processes,
// browsers and routers of their own, and their waits overlap best side by side.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LONGEST } from './order.mjs';

export const OWN_PROCESS = '@own-process';
/** The trees whose files are grouped (paths relative to the checkout). */
const GROUPED_TREES = ['test/unit/', 'test/integration/', 'test/e2e/'];
/** Files per group: enough to spread one load over several files, few enough that groups still run side by side. */
export const GROUP_SIZE = 8;

function groupable(root, file) {
  const path = relative(root, file);
  return GROUPED_TREES.some((tree) => path.startsWith(tree)) && !LONGEST.includes(path) && !readFileSync(file, 'utf8').slice(0, 4096).includes(OWN_PROCESS);
}

/**
 * The entries to hand to node --test for `files` (checkout paths, in the order they should start) compiled under
 * `compiled`: each file that runs alone as its compiled path, and for each GROUP_SIZE groupable files, in order, one
 * group file written under `compiled` (named after `label`), placed where its first member was. `compiledOf` maps a
 * checkout path to its compiled path.
 */
export function groupedEntries(root, compiled, label, files, compiledOf) {
  const dir = join(compiled, 'test', '.groups');
  mkdirSync(dir, { recursive: true });
  const entries = [];
  let open;
  let count = 0;
  const close = () => {
    if (!open) return;
    const path = join(dir, `${label.toLowerCase()}-${String(++count).padStart(3, '0')}.test.js`);
    const lines = [`// A group of ${open.members.length} test files run in one process (scripts/test/groups.mjs).`];
    for (const member of open.members) lines.push(`import ${JSON.stringify(pathToFileURL(member).href)};`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    entries[open.at] = path;
    open = undefined;
  };
  for (const file of files) {
    if (!groupable(root, file)) {
      entries.push(compiledOf(file));
      continue;
    }
    if (!open) {
      open = { at: entries.length, members: [] };
      entries.push(undefined);
    }
    open.members.push(compiledOf(file));
    if (open.members.length === GROUP_SIZE) close();
  }
  close();
  return entries;
}
