// The failed tests of a pass, read from its TAP report, for the closing lines of `npm test`. The spec reporter names a
// failure where it happens, hundreds of lines before the end of a run; CI shows only the end of its output, so the
// summary repeats each failure there: where it is, what it said. Suites that failed only because a test in them did
// ('subtestsFailed') are left out: their failing tests are listed themselves.

/** The failures in `tap` (node's TAP reporter output): `{ name, location, error }`, in the order they were reported. */
export function failuresIn(tap) {
  const lines = tap.split('\n');
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i].match(/^(\s*)not ok \d+ - (.*)$/);
    if (!head) continue;
    const fields = {};
    const indent = `${head[1]}  `;
    if (lines[i + 1]?.trim() === '---') {
      for (let j = i + 2; j < lines.length && lines[j].trim() !== '...'; j++) {
        const field = lines[j].startsWith(indent) ? lines[j].slice(indent.length).match(/^(\w+): (.*)$/) : null;
        if (!field) continue;
        const [, key, raw] = field;
        // A multi-line value ("|-") continues on the deeper-indented lines after it: its first few are enough here.
        if (raw !== '|-') fields[key] = raw.replace(/^'(.*)'$/, '$1');
        else {
          const more = [];
          for (let k = j + 1; k < lines.length && lines[k].startsWith(`${indent}  `) && more.length < 4; k++) {
            if (lines[k].trim() !== '') more.push(lines[k].trim());
          }
          fields[key] = more.join(' ');
        }
      }
    }
    if (fields.failureType === 'subtestsFailed') continue;
    failures.push({ name: head[2], location: fields.location ?? '', error: fields.error ?? fields.failureType ?? '' });
  }
  return failures;
}

/** Lines naming each failure, at most `limit` of them, with the compiled suite's folder taken out of the locations. */
export function failureLines(label, failures, compiledDir, limit = 25) {
  const shown = failures.slice(0, limit).map(({ name, location, error }) => {
    const where = compiledDir && location.startsWith(compiledDir) ? location.slice(compiledDir.length + 1) : location;
    return `  ✖ ${label}: ${name}${where ? ` (${where})` : ''}${error ? `\n      ${error.slice(0, 300)}` : ''}`;
  });
  if (failures.length > limit) shown.push(`  … and ${failures.length - limit} more in the ${label} pass`);
  return shown;
}
