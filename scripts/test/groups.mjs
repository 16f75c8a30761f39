// Several small test files in one process (decision 0088). Every test process of the suite first loads the controller's
// ~1,300 modules, about 1 to 1.8 s of CPU, and most unit and integration files then run for less than that: on a
// two-core machine, the loading was a third of the suite. A group file imports a handful of compiled test files, so
// they share one load; node --test runs it like any other file. With static imports every member is evaluated before
// any test starts, so a member's top-level hooks still run around its tests (and its `after` at the group's end).
// A file that needs a process of its own (it changes process-wide state and does not put it back, or measures the
// process) carries OWN_PROCESS in its header; files outside GROUPED_TREES always run alone: they start processes,
// browsers and routers of their own, and their waits overlap best side by side.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LONGEST } from './order.mjs';

export const OWN_PROCESS = '@own-process';
/** The trees whose files are grouped (paths relative to the checkout). */
const GROUPED_TREES = ['test/unit/', 'test/integration/', 'test/e2e/'];
/** Files per group: enough to spread one load over several files, few enough that groups still run side by side. */
export const GROUP_SIZE = 8;

/** The start of a test file, where its markers (@own-process, @store-independent, @ui-only) are written. */
export const fileHeader = (file) => readFileSync(file, 'utf8').slice(0, 4096);

function groupable(root, file) {
  const path = relative(root, file);
  return GROUPED_TREES.some((tree) => path.startsWith(tree)) && !LONGEST.includes(path) && !fileHeader(file).includes(OWN_PROCESS);
}

/**
 * The entries to hand to node --test for `files` (checkout paths, in the order they should start) compiled under
 * `compiled`: one generated file per entry, under `compiled`/test/.groups, that imports either one file that runs
 * alone or, for each GROUP_SIZE groupable files in order, a group of them (placed where its first member was). The
 * entries are numbered because node --test sorts the files it is given by path and starts them in that order: only
 * the numbers keep the order chosen here (the longest first). `group: false` gives every file an entry of its own.
 * `compiledOf` maps a checkout path to its compiled path.
 */
export function groupedEntries(root, compiled, label, files, compiledOf, { group = true } = {}) {
  const dir = join(compiled, 'test', '.groups');
  mkdirSync(dir, { recursive: true });
  const slots = [];
  let open;
  for (const file of files) {
    if (!group || !groupable(root, file)) {
      slots.push({ members: [file], name: basename(file).replace(/\.test\.ts$/, '') });
      open = undefined;
      continue;
    }
    if (!open) slots.push((open = { members: [], name: 'group' }));
    open.members.push(file);
    if (open.members.length === GROUP_SIZE) open = undefined;
  }
  const width = String(slots.length).length;
  return slots.map(({ members, name }, index) => {
    const path = join(dir, `${label.toLowerCase()}-${String(index + 1).padStart(width, '0')}-${name}.test.js`);
    const lines = [`// ${members.length === 1 ? 'One test file' : `A group of ${members.length} test files`}, run by npm test in one process (scripts/test/groups.mjs).`];
    for (const member of members) lines.push(`import ${JSON.stringify(pathToFileURL(compiledOf(member)).href)};`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  });
}
