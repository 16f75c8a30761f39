/**
 * Bad requests around the body: query parameters (repeated, outside their enumeration, list parameters that do not
 * parse, OAuth parameters repeated or overlong), headers (oversized, too many, malformed framing, no Host, an
 * unknown Expect, credentials that are not), URLs past the head limit, and path ids that do not exist or cannot.
 * Builders return values and never assert.
 */
import { baseCase, formCode, pathWith, pct, type BadCase, type CaseContext } from './case.js';
import { hostileString } from './values.js';

/** Values list parameters refuse: each fails its own parser whatever the list. */
const LIST_PARAMETER_VALUES: Record<string, readonly string[]> = {
  limit: ['abc', '1.5', '0', '-7', '1e400', '9'.repeat(40), 'ten', ' ', '-1-1'],
  offset: ['-1', 'x', '1.0', '9'.repeat(40), '0x10'],
  filter: ['((((', 'name = ', '"unterminated', 'name = "a" and', 'nosuchfield = 1', `${'('.repeat(40)}name = "a"${')'.repeat(40)}`, 'name ~~ "a"', 'x'.repeat(5000)],
  sort: ['nosuchfield', 'name sideways', 'name asc extra', 'ünïcode desc'],
  // Tokens are unguessable: any made-up one is refused.
  token: ['corpus-not-a-token', 'eyJhbGciOiJub25lIn0.e30.', '%', '..'],
};

function withQuery(context: CaseContext, query: string): string {
  return `${pathWith(context)}?${query}`;
}

/** Declared query parameters given bad values. */
export function queryCases(context: CaseContext): BadCase[] {
  const { rng, op } = context;
  if (op.query.length === 0) return [];
  const out: BadCase[] = [];
  const repeated = rng.pick(op.query);
  out.push(baseCase(context, 'repeated-parameter', `${repeated.name} twice`, { target: withQuery(context, `${pct(repeated.name)}=1&${pct(repeated.name)}=${pct(hostileString(rng, 200))}`) }));
  for (const parameter of rng.sample(op.query, 2)) {
    const enumerated = parameter.schema.enum ?? (parameter.schema.anyOf?.every((b: { const?: unknown }) => 'const' in b) ? parameter.schema.anyOf : undefined);
    const known = LIST_PARAMETER_VALUES[parameter.name];
    let value: string | undefined;
    if (known) value = rng.pick(known);
    else if (enumerated) value = `${hostileString(rng, 500)}-not-a-member`;
    if (value === undefined) continue;
    // A required parameter stays present with its bad value; others keep the method a valid one where there is one.
    const others = op.query.filter((q) => q.name !== parameter.name && q.schema.anyOf?.[0]?.const !== undefined).map((q) => `${pct(q.name)}=${pct(String(q.schema.anyOf[0].const))}`);
    out.push(baseCase(context, 'bad-query-value', `${parameter.name}=${value.slice(0, 40)}`, { target: withQuery(context, [...others, `${pct(parameter.name)}=${pct(value)}`].join('&')) }));
  }
  return out;
}

/** Provider GET endpoints read every query parameter as an OAuth one: repeats and overlong values are refused. */
export function providerQueryCases(context: CaseContext): BadCase[] {
  const { rng } = context;
  const name = rng.pick(['id', 'authRequestID', 'client_id', 'state', 'redirect_uri', 'x']);
  const long = `${hostileString(rng, 32)}${'L'.repeat(rng.between(8193, 9000))}`;
  return [
    baseCase(context, 'repeated-parameter', `${name} twice`, { target: withQuery(context, `${pct(name)}=${pct(hostileString(rng, 300))}&${pct(name)}=2`), status: 400, code: 'invalid_request' }),
    baseCase(context, 'overlong-parameter', `${name} of ${long.length} characters`, { target: withQuery(context, `${pct(name)}=${pct(long)}`), status: 400, code: 'invalid_request' }),
  ];
}

/** Header values must be bytes 0x20-0x7e or 0x80-0xff (and tab): the other controls are framing errors, tested apart. */
function headerSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '?').replace(/[^\u0000-\u00ff]/g, 'ÿ');
}

/** Head-size and framing refusals: the same for every route, the answer in the route's shape when it is routed. */
export function headerCases(context: CaseContext): BadCase[] {
  const { rng, op, limits } = context;
  const routed = (kind: string, what: string, status: number, code: string, overrides: Partial<BadCase>) =>
    baseCase(context, kind, what, { status, code: formCode(context, code), ...overrides });
  const unrouted = (kind: string, what: string, status: number, code: string, overrides: Partial<BadCase>) =>
    baseCase(context, kind, what, { status, code, unrouted: true, ...overrides });
  const pad = rng.between(limits.headBytes + 1, limits.socketHeadBytes - 4096);
  const many = Math.ceil(limits.headBytes / 40) + rng.between(1, 400);
  const out: BadCase[] = [
    rng.chance(0.5)
      ? routed('oversized-header', `one ${pad}-byte header`, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', { headers: [['x-corpus-pad', headerSafe(hostileString(rng, 40)) + 'p'.repeat(pad)]] })
      : routed('oversized-header', `${many} headers`, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', { headers: Array.from({ length: many }, (_, i) => [`x-corpus-${i}`, 'v'.repeat(24)] as [string, string]) }),
    routed('huge-url', `a ${pad}-byte URL`, 414, 'URI_TOO_LONG', { target: `${pathWith(context)}?pad=${'u'.repeat(pad)}` }),
    routed('missing-host', 'no Host header', 400, 'COULD_NOT_PARSE_REQUEST', { omitHost: true }),
  ];
  const framing: Array<[string, Partial<BadCase>]> = [
    ['two different Content-Length values', { headers: [['content-length', '2'], ['content-length', '3'], ['content-type', 'application/json']], body: '{}', frameBody: false }],
    ['Content-Length with chunked Transfer-Encoding', { headers: [['content-length', '2'], ['transfer-encoding', 'chunked']], body: '2\r\n{}\r\n0\r\n\r\n', frameBody: false }],
    ['a control character in a header value', { headers: [['x-corpus', 'a\u0001b']] }],
    ['a space in a header name', { headers: [['x corpus', 'a']] }],
    ['a negative Content-Length', { headers: [['content-length', '-1']], body: '', frameBody: false }],
    ['a folded header line', { headers: [['x-corpus', 'a\r\n folded']] }],
  ];
  const [what, overrides] = rng.pick(framing);
  out.push(unrouted('bad-framing', what, 400, 'COULD_NOT_PARSE_REQUEST', overrides));
  out.push(
    rng.chance(0.5)
      ? unrouted('oversized-header', `a ${limits.socketHeadBytes}+ byte head`, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', { headers: [['x-corpus-pad', 'q'.repeat(limits.socketHeadBytes + rng.between(1, 100_000))]] })
      : unrouted('unknown-expectation', 'Expect: corpus-teapot', 417, 'EXPECTATION_FAILED', { headers: [['expect', 'corpus-teapot']] }),
  );
  if (op.authenticated) {
    const [credentials, headers] = rng.pick<[string, Array<[string, string]>]>([
      ['a made-up svc-session', [['svc-session', headerSafe(hostileString(rng, 2000)) || 'x']]],
      ['svc-session twice, both made up', [['svc-session', 'corpus-one'], ['svc-session', 'corpus-two']]],
      ['four made-up Bearer tokens', [['authorization', 'Bearer a, Bearer b'], ['authorization', 'Bearer c, Bearer d']]],
      ['a Bearer token of non-ASCII bytes', [['authorization', `Bearer ${headerSafe('ëÿ\u00a0ñ')}`]]],
      ['Basic credentials', [['authorization', 'Basic YWRtaW46YWRtaW4tcGFzc3dvcmQ=']]],
    ]);
    out.push(baseCase(context, 'bad-credentials', credentials, { headers, token: 'none', status: 401, code: 'UNAUTHORIZED' }));
  }
  for (const parameter of op.headerParams) {
    out.push(baseCase(context, 'bad-header-parameter', `${parameter.name}`, { headers: [[parameter.name, headerSafe(hostileString(rng, 4000)) || 'x']] }));
  }
  return out;
}

/** Ids that name nothing, or cannot name anything: made up, hostile, overlong, badly encoded. */
export function pathIdCases(context: CaseContext): BadCase[] {
  const { rng, op, limits } = context;
  const out: BadCase[] = [];
  for (const name of op.pathParams) {
    const ids: Array<[string, string]> = [
      ['a made-up id', `corpus${rng.int(1e9)}`],
      ['a hostile id', pct(hostileString(rng, 60) || 'x')],
      ['an overlong id', 'i'.repeat(limits.maxParamLength + rng.between(1, 2000))],
      ['a bad percent-encoding', rng.pick(['%zz', '%E0%A4%A', '%', '%C3%28'])],
      ['an encoded NUL', `a%00b`],
      ['an encoded slash', '..%2F..%2Fversion'],
      ['dot segments', rng.pick(['..', '.'])],
    ];
    for (const [what, id] of rng.sample(ids, 4)) {
      out.push(baseCase(context, 'bad-path-id', `${name}: ${what}`, { target: pathWith(context, { [name]: id }) }));
    }
  }
  return out;
}
