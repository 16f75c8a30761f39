// The order in which `npm test` starts test files: the longest first, then the rest by tree (e2e, whose groups run
// 30 to 80 s, before browser, integration and unit), as found within a tree. Files start a few at a time, so a long
// file started last runs alone at the end of a pass while the other cores idle; started first, it runs beside the many
// short ones. node --test itself starts files sorted by path, so a compiled run names its entries in this order
// (scripts/test/groups.mjs); a run through tsx keeps node's order. The list is what the suite's own timing shows as
// slowest; a file missing from it only starts later, it is never left out.
export const LONGEST = [
  'test/e2e/guides.test.ts',
  'test/e2e/cli-logs.test.ts',
  'test/e2e/router-links.test.ts',
  'test/e2e/bad-input-corpus.test.ts',
  'test/e2e/cli-first-hour.test.ts',
  'test/e2e/cli-quickstart.test.ts',
  'test/browser/console-policies.test.ts',
  'test/e2e/router-processes.test.ts',
  'test/e2e/router-links-circuits.test.ts',
  'test/browser/console-lists.test.ts',
  'test/browser/console-identities.test.ts',
  'test/unit/linear-time-config.test.ts',
  'test/e2e/slow-clients.test.ts',
  'test/browser/console-shell.test.ts',
  'test/e2e/edge-listener.test.ts',
  'test/e2e/sdk-dial-listen.test.ts',
  'test/browser/console-services.test.ts',
  'test/browser/login-page.test.ts',
  'test/e2e/router-renewal.test.ts',
  'test/e2e/router-enrollment.test.ts',
  'test/e2e/router-enroll.test.ts',
  'test/e2e/controller-start-failure.test.ts',
];

/** The trees after LONGEST, in the order they start. */
const TREES = ['test/e2e/', 'test/browser/', 'test/integration/', 'test/unit/'];

/** `files` (absolute paths under `root`) with the known longest first, in LONGEST's order, then by TREES. */
export function longestFirst(root, files) {
  const rank = (file) => {
    const path = file.slice(root.length).replace(/^\/+/, '');
    const index = LONGEST.indexOf(path);
    if (index !== -1) return index;
    const tree = TREES.findIndex((prefix) => path.startsWith(prefix));
    return LONGEST.length + (tree === -1 ? TREES.length : tree);
  };
  return files.map((file, at) => ({ file, at, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map((entry) => entry.file);
}
