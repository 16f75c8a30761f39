/**
 * Controller and router files cost time linear in their size whatever they hold (issue 12, point 1): the YAML reader
 * with positions, `${VAR}` substitution, the schema and rule checks of both files, and the value parsers they use
 * (durations, host:port). Each gets a file of the largest size read (MAX_YAML_LENGTH) in its worst shapes, timed as a
 * ratio to an ordinary file of the same size in the same run. Also the behaviour of what was rewritten for it: the
 * reference scanner, the duplicate-key check, the size and depth limits, and the indexes behind `isClean`,
 * `errorCount` and the bind-point clash check.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { hostPortKey, parseHostPort, sameHostPort } from '../../src/config/host-port.js';
import { createRuleContext, errorCount, reportError, reportWarning } from '../../src/config/rule-context.js';
import type { HostPort } from '../../src/config/types.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { parseDuration } from '../../src/shared/durations.js';
import { reasonOf } from '../../src/shared/system-errors.js';
import { isClean, type SchemaCheckResult } from '../../src/shared/schema-check.js';
import { substituteReferences } from '../../src/shared/variable-references.js';
import { MAX_YAML_DEPTH, MAX_YAML_LENGTH, parseYaml } from '../../src/shared/yaml-source.js';
import { HEAD as CONTROLLER_HEAD, EDGE, loadText, printed } from '../helpers/config-fixture.js';
import { fill, LINEAR_BOUND, fillWith, ratioSummary, timeRatios, tooSlow } from '../helpers/timing.js';

const SIZE = MAX_YAML_LENGTH;
const BOUND = LINEAR_BOUND;
const ROUTER_HEAD = 'v: 3\nidentity:\n  cert: c.pem\n  server_cert: s.pem\n  key: k.pem\n  ca: ca.pem\nctrl:\n  endpoint: tls:ctrl.example.com:6262\n';

/** `head`, then items from `item(0)`, `item(1)`, ... up to SIZE characters (cut at an item). */
const upToSize = (head: string, item: (index: number) => string) => head + fillWith(item, SIZE - head.length);

/** The old substitution: a regular expression that searched for a `}` from every `${`. Kept as the reference. */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
function regexSubstitution(text: string, variables: Record<string, string | undefined>): { text: string; problems: string[] } {
  const problems: string[] = [];
  const out = text.replace(REFERENCE, (whole, name: string | undefined) => {
    if (name === undefined) return '${';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`'${whole}' is not a valid variable reference`);
    else if (!Object.hasOwn(variables, name) || variables[name] === undefined) problems.push(`environment variable '${name}' is not set`);
    else return variables[name] as string;
    return whole;
  });
  return { text: out, problems };
}

describe('linear time: the measurement itself', () => {
  it('tells the old quadratic reference search from a linear one', async () => {
    const size = 8 * 1024;
    const ratios = await timeRatios(() => regexSubstitution(fill('a ${A} ', size), { A: 'x' }), {
      'the old search on ${ alone': () => regexSubstitution(fill('${', size), {}),
    });
    assert.ok((ratios[0]?.ratio ?? 0) >= BOUND, ratioSummary(ratios));
  });
});

describe('linear time: YAML files', () => {
  it(`reads ${SIZE} characters of YAML of any shape in a small multiple of an ordinary file`, async (t) => {
    const yaml = (text: string) => () => parseYaml(text, 'f.yml', { env: { HOST: 'ctrl' } });
    const normal = upToSize('listeners:\n', (i) => `  - binding: edge\n    address: tls:0.0.0.0:${3000 + (i % 1000)}\n    options: {advertise: '\${HOST}:${i}'}\n`);
    assert.deepEqual(parseYaml(normal, 'f.yml', { env: { HOST: 'ctrl' } }).diagnostics, [], 'the ordinary file parses');
    const ratios = await timeRatios(yaml(normal), {
      'many keys in one mapping': yaml(upToSize('', (i) => `key${i}: ${i}\n`)),
      'one key repeated': yaml(upToSize('', () => 'key: 1\n')),
      '${ alone in one value': yaml(`a: "${fill('${', SIZE - 8)}"\n`),
      'unset references in a long list': yaml(upToSize('l:\n', (i) => `  - \${NOPE_${i}}\n`)),
      'open flow brackets': yaml(`a: ${'['.repeat(SIZE - 3)}`),
      'closed flow brackets': yaml(`a: ${'['.repeat(SIZE / 2 - 2)}${']'.repeat(SIZE / 2 - 2)}`),
      'nested block lists': yaml(fill('- ', SIZE)),
      'nested flow mappings': yaml(`a: ${fill('{a: ', SIZE - 3)}`),
      'anchors and aliases': yaml(`a: &a [x, y]\nl:\n${fill('  - *a\n', SIZE - 40)}`),
      'one long line': yaml(`a: ${'x'.repeat(SIZE - 3)}`),
      'many documents': yaml(fill('---\na: 1\n', SIZE)),
    }, 3);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case YAML took longer than allowed');
  });

  it('checks a router file of the largest size in a small multiple of an ordinary one, however faulty', async (t) => {
    const check = (text: string) => () => validateRouterConfig(text, 'router.yml', { env: {} });
    const port = (i: number) => 3000 + (i % 60000);
    const normal = upToSize(`${ROUTER_HEAD}edge: {}\nlisteners:\n`, (i) => `  - binding: edge\n    address: tls:0.0.0.0:${port(i)}\n    advertise: router.example.com:${port(i)}\n`);
    assert.ok(validateRouterConfig(normal, 'router.yml', { env: {} }).config, 'the ordinary file is valid');
    const ratios = await timeRatios(check(normal), {
      'unknown top-level keys': check(upToSize(ROUTER_HEAD, (i) => `unknown${i}: 1\n`)),
      'unknown keys in one section': check(upToSize(`${ROUTER_HEAD}link:\n`, (i) => `  unknown${i}: 1\n`)),
      'faulty listeners': check(upToSize(`${ROUTER_HEAD}listeners:\n`, () => '  - binding: edgy\n    address: nope\n')),
      'faulty tunnel listeners': check(upToSize(`${ROUTER_HEAD}listeners:\n`, () => '  - binding: tunnel\n    options: {mode: nope, services: [x]}\n')),
      'names of the wrong type': check(upToSize(`${ROUTER_HEAD}csr:\n  sans:\n    dns:\n`, (i) => `      - ${i}\n`)),
      'unset references': check(upToSize(`${ROUTER_HEAD}csr:\n  sans:\n    dns:\n`, (i) => `      - \${NOPE_${i}}\n`)),
    }, 3);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case router files took longer than allowed');
  });

  it('checks a controller file of the largest size in a small multiple of an ordinary one, however faulty', async (t) => {
    const check = (text: string) => () => loadText(text);
    const web = 'web:\n  - name: client\n    apis:\n      - binding: edge-client\n    bindPoints:\n      - interface: 0.0.0.0:1280\n        address: ctrl.example.com:1280\n';
    const head = `${CONTROLLER_HEAD}${EDGE}${web}`;
    const point = (host: string) => `      - interface: '${host}:1281'\n        address: ctrl.example.com:1280\n`;
    const normal = upToSize(head, (i) => point(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
    assert.deepEqual(printed(await loadText(normal)), [], 'the ordinary file is valid');
    const ratios = await timeRatios(check(normal), {
      'IPv6 bind points on one port': check(upToSize(head, (i) => point(`[fd00::${i.toString(16)}]`))),
      'one bind point repeated': check(upToSize(head, () => point('0.0.0.0'))),
      'faulty listeners': check(upToSize(`${CONTROLLER_HEAD}${EDGE}web:\n`, (i) => `  - name: l${i}\n    apis: [{binding: nope}]\n    bindPoints: [{interface: x, address: y}]\n`)),
      'unknown top-level keys': check(upToSize(`${CONTROLLER_HEAD}${EDGE}`, (i) => `unknown${i}: 1\n`)),
    }, 3);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case controller files took longer than allowed');
  });

  it('parses durations, addresses and file-system errors of the largest size in a small multiple of ordinary ones', async (t) => {
    const durations = await timeRatios(() => parseDuration(fill('1h30m15s', SIZE)), {
      digits: () => parseDuration('1'.repeat(SIZE)),
      'parts then a stray character': () => parseDuration(`${fill('1h', SIZE - 1)}x`),
      'fractions without units': () => parseDuration(fill('1.1', SIZE)),
      'minutes then a stray character': () => parseDuration(`${fill('1m', SIZE - 1)}x`),
    });
    const addresses = await timeRatios(() => parseHostPort(`${fill('label.', SIZE - 5)}:1280`), {
      colons: () => parseHostPort(':'.repeat(SIZE)),
      'names and colons': () => parseHostPort(fill('a:', SIZE)),
      'a protocol prefix': () => parseHostPort(`tls:${'a'.repeat(SIZE - 5)}x`),
      'open brackets': () => parseHostPort('['.repeat(SIZE)),
      'a bracketed host without a port': () => parseHostPort(`[${':'.repeat(SIZE - 2)}]`),
    });
    const failed = (path: string) => Object.assign(new Error(`ENAMETOOLONG: name too long, access '${path}'`), { syscall: 'access', path });
    const [longPath, quotedPath] = [failed(`/${'a'.repeat(SIZE)}`), failed(fill(", x '", SIZE))];
    const fileErrors = await timeRatios(() => reasonOf(longPath), { "a path full of , x '": () => reasonOf(quotedPath) });
    t.diagnostic(`durations: ${ratioSummary(durations)} | addresses: ${ratioSummary(addresses)} | file errors: ${ratioSummary(fileErrors)}`);
    assert.equal(tooSlow([...durations, ...addresses, ...fileErrors], BOUND), '', 'worst-case values took longer than allowed');
  });

  it("words a file-system error without Node's ending, however the path reads", async () => {
    const error = await access('/no/such/dir, access \'x\'').then(() => undefined, (e: unknown) => e);
    assert.equal(reasonOf(error), 'ENOENT: no such file or directory');
    assert.equal(reasonOf(new Error("plain, read 'x'")), "plain, read 'x'");
  });
});

describe('YAML limits', () => {
  it(`refuses a text over ${MAX_YAML_LENGTH} characters with one error at 1:1, without parsing it`, () => {
    const parsed = parseYaml(`a: ${'x'.repeat(MAX_YAML_LENGTH)}`, 'f.yml');
    assert.equal(parsed.value, undefined);
    assert.deepEqual(parsed.diagnostics.map((d) => [d.line, d.column, d.message]), [
      [1, 1, `the file is ${MAX_YAML_LENGTH + 3} characters long; at most ${MAX_YAML_LENGTH} are read`],
    ]);
  });

  it(`reads ${MAX_YAML_DEPTH} levels of nesting and refuses one more at the collection that goes past`, () => {
    const flow = (depth: number) => `${'['.repeat(depth)}x${']'.repeat(depth)}\n`;
    assert.equal(parseYaml(flow(MAX_YAML_DEPTH), 'f.yml').diagnostics.length, 0);
    const refused = parseYaml(`a:\n  b: ${flow(MAX_YAML_DEPTH - 1)}`, 'f.yml');
    assert.equal(refused.value, undefined);
    assert.deepEqual(refused.diagnostics.map((d) => [d.line, d.column, d.message]), [
      [2, 6 + MAX_YAML_DEPTH - 2, `the file nests deeper than ${MAX_YAML_DEPTH} levels of mappings and lists`],
    ]);
  });

  it('refuses 100,000 nested lists with the depth error rather than a stack overflow', () => {
    const parsed = parseYaml(`a: ${'['.repeat(100_000)}`, 'f.yml');
    assert.deepEqual(parsed.diagnostics.map((d) => d.message), [`the file nests deeper than ${MAX_YAML_DEPTH} levels of mappings and lists`]);
  });

  it('reports every repeated key at its position, in block and flow mappings, keeping 1 and "1" apart', () => {
    const parsed = parseYaml('a: 1\nb:\n  c: 1\n  c: 2\na: 3\nf: {x: 1, x: 2, 1: a, "1": b}\n', 'f.yml');
    assert.equal(parsed.value, undefined);
    assert.deepEqual(parsed.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).sort(), [
      '4:3 Map keys must be unique',
      '5:1 Map keys must be unique',
      '6:11 Map keys must be unique',
    ]);
  });

  it('refuses a second document and aliases that expand past the alias budget, as errors rather than exceptions', () => {
    assert.match(parseYaml('a: 1\n---\nb: 2\n', 'f.yml').diagnostics[0]?.message ?? '', /more than one YAML document/);
    const laughs = `a: &a [x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: &d [*c, *c, *c, *c]\ne: [*d, *d, *d, *d]\n`;
    const parsed = parseYaml(laughs, 'f.yml');
    assert.equal(parsed.value, undefined);
    assert.match(parsed.diagnostics[0]?.message ?? '', /alias/i);
  });
});

describe('the reference scanner', () => {
  it('substitutes as the old regular expression did, on generated texts', () => {
    const alphabet = ['$', '{', '}', '$', '${', '$${', 'A', 'B_1', '1', ' ', '\n', 'x', '}'];
    const variables = { A: 'a-value', B_1: 'b-value', EMPTY: '' };
    let seed = 12;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: next() % 24 }, () => alphabet[next() % alphabet.length]).join('');
      assert.deepEqual(substituteReferences(text, variables), regexSubstitution(text, variables), JSON.stringify(text));
    }
  });

  it('replaces set names, keeps $${ as ${, and reports malformed and unset references', () => {
    assert.deepEqual(substituteReferences('https://${HOST}:$${PORT}/${1X}${NOPE}${', { HOST: 'ctrl' }), {
      text: 'https://ctrl:${PORT}/${1X}${NOPE}${',
      problems: ["'${1X}' is not a valid variable reference", "environment variable 'NOPE' is not set"],
    });
  });

  it('never takes a name from the prototype of the variable table', () => {
    assert.deepEqual(substituteReferences('${toString}', {}).problems, ["environment variable 'toString' is not set"]);
  });
});

describe('the indexes behind the rule checks', () => {
  it('says a path is clean exactly when no problem is at, above or below it', () => {
    const problems = ['a.b[2]', 'c', 'd[0].e', 'f.g.h'];
    const result: SchemaCheckResult = { diagnostics: [], problemPaths: problems };
    const within = (outer: string, inner: string) => outer === '' || inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
    const cases: (string | number)[][] = [[], ['a'], ['a', 'b'], ['a', 'b', 2], ['a', 'b', 20], ['a', 'b', 2, 'x'], ['a', 'bc'], ['c'], ['cc'], ['c', 'x'], ['d'], ['d', 0], ['d', 1], ['f', 'g'], ['f', 'gh'], ['z']];
    for (const path of cases) {
      const text = path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
      const expected = !problems.some((p) => within(text, p) || within(p, text));
      assert.equal(isClean(result, path), expected, text);
    }
    assert.equal(isClean({ diagnostics: [], problemPaths: [''] }, ['x']), false);
    assert.equal(isClean({ diagnostics: [], problemPaths: [] }, []), true);
  });

  it('counts errors as diagnostics are added, warnings aside', () => {
    const parsed = parseYaml('a: 1\n', 'f.yml');
    const context = createRuleContext(parsed.source, '', { diagnostics: [], problemPaths: [] });
    assert.equal(errorCount(context), 0);
    reportError(context, ['a'], 'one');
    reportWarning(context, ['a'], 'a warning');
    assert.equal(errorCount(context), 1);
    reportError(context, ['a'], 'two');
    reportError(context, ['a'], 'three');
    assert.equal(errorCount(context), 3);
  });

  it('gives two addresses one key exactly when they are the same host and port', () => {
    const address = (text: string) => (parseHostPort(text) as { ok: true; value: HostPort }).value;
    const same = [['[::1]:80', '[0:0::1]:80'], ['Ctrl.Example.com.:80', 'ctrl.example.com:80'], ['10.0.0.1:80', '10.0.0.1:80']];
    const different = [['[::1]:80', '[::2]:80'], ['a.example.com:80', 'a.example.com:81'], ['a.example.com:80', 'b.example.com:80']];
    for (const [a, b] of same) assert.ok(sameHostPort(address(a as string), address(b as string)) && hostPortKey(address(a as string)) === hostPortKey(address(b as string)), `${a} ${b}`);
    for (const [a, b] of different) assert.ok(!sameHostPort(address(a as string), address(b as string)), `${a} ${b}`);
  });

  it('still reports a bind point whose interface an earlier listener took, however it is spelt', async () => {
    const web = `web:
  - name: a
    bindPoints: [{interface: '[::1]:1280', address: 'ctrl.example.com:1280'}]
    apis: [{binding: edge-client}]
  - name: b
    bindPoints: [{interface: '[0:0::1]:1280', address: 'ctrl.example.com:1280'}]
    apis: [{binding: edge-management}]
`;
    const result = await loadText(`${CONTROLLER_HEAD}${EDGE}${web}`);
    assert.ok(printed(result).some((line) => line.includes("interface '[0:0::1]:1280' is already used by web[0].bindPoints[0]")), printed(result).join('\n'));
  });
});
