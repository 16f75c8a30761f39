// The order `npm test` hands test files to node --test: the longest first, the rest as found. Files start in the order
// given, a few at a time, so a long file started last runs alone at the end of a pass while the other cores idle;
// started first, it runs beside the many short ones. The list is what the suite's own timing shows as slowest (the
// per-file durations a run prints); a file missing from it only starts later, it is never left out.
export const LONGEST = [
  'test/e2e/guides.test.ts',
  'test/e2e/cli-logs.test.ts',
  'test/e2e/cli-first-hour.test.ts',
  'test/e2e/bad-input-corpus.test.ts',
  'test/e2e/cli-quickstart.test.ts',
  'test/e2e/router-links-circuits.test.ts',
  'test/unit/linear-time-config.test.ts',
  'test/e2e/edge-listener.test.ts',
  'test/browser/console-shell.test.ts',
  'test/browser/console-policies.test.ts',
  'test/browser/console-lists.test.ts',
  'test/e2e/sdk-dial-listen.test.ts',
  'test/e2e/router-processes.test.ts',
  'test/browser/login-page.test.ts',
  'test/e2e/router-links.test.ts',
  'test/e2e/slow-clients.test.ts',
  'test/browser/console-services.test.ts',
  'test/browser/console-identities.test.ts',
  'test/e2e/router-renewal.test.ts',
  'test/e2e/router-enroll.test.ts',
  'test/e2e/router-enrollment.test.ts',
  'test/e2e/controller-start-failure.test.ts',
];

/** `files` (absolute paths under `root`) with the known longest first, in LONGEST's order; the others keep theirs. */
export function longestFirst(root, files) {
  const rank = (file) => {
    const index = LONGEST.indexOf(file.slice(root.length).replace(/^\/+/, ''));
    return index === -1 ? LONGEST.length : index;
  };
  return files.map((file, at) => ({ file, at, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map((entry) => entry.file);
}
