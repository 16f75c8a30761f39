/**
 * Bad bodies: what the JSON parser must refuse whatever the route (nesting past the limit, duplicate keys,
 * prototype keys, malformed text, bodies past the size limit, content types nothing reads), values the route's
 * schema refuses (wrong types, strings past maxLength, numbers past their bounds, unknown names), and OAuth
 * parameters that are not single short strings. Builders return values and never assert.
 */
import { baseCase, formCode, pct, type BadCase, type CaseContext } from './case.js';
import { closedObjects, sampleValue, slots, withValueAt, wrongTypes } from './schema-values.js';
import { hostileKey, hostileNumber, hostileString, hostileValue, jsonText, nestedText, RawJson, type JsonType } from './values.js';

const JSON_TYPE: [string, string] = ['content-type', 'application/json'];

/** The body a case starts from: a plausible one for the route (or an OAuth parameter), as an object. */
function startingBody(context: CaseContext): Record<string, unknown> {
  const sample = context.op.jsonBody ? sampleValue(context.op.jsonBody) : { id: 'corpus-auth-request' };
  return sample !== null && typeof sample === 'object' && !Array.isArray(sample) ? (sample as Record<string, unknown>) : {};
}

/** `{…start, <member>: value}` as text, `member` a name the body has or a new one. */
function withMember(context: CaseContext, valueText: string): string {
  const start = startingBody(context);
  const names = Object.keys(start);
  const member = names.length > 0 && context.rng.chance(0.7) ? context.rng.pick(names) : 'corpus';
  const rest = Object.entries(start).filter(([name]) => name !== member);
  return `{${[...rest.map(([name, value]) => `${JSON.stringify(name)}:${jsonText(value)}`), `${JSON.stringify(member)}:${valueText}`].join(',')}}`;
}

function parseRefusal(context: CaseContext, kind: string, what: string, body: string | Buffer): BadCase {
  return baseCase(context, kind, what, { headers: [JSON_TYPE], body, status: 400, code: formCode(context, 'COULD_NOT_PARSE_BODY') });
}

/** Nesting past the limit: just past it, thousands deep (issue 11's 500), and as deep as the body limit allows. */
function deepNesting(context: CaseContext): BadCase[] {
  const { rng, limits } = context;
  const depths = [limits.maxJsonDepth + 1, rng.between(limits.maxJsonDepth + 2, 5000), rng.between(20_000, Math.floor(limits.bodyBytes / 8))];
  return depths.map((depth) => {
    const nested = nestedText(rng, depth).text;
    const top = rng.chance(0.3);
    return parseRefusal(context, 'deep-nesting', `${depth} levels ${top ? 'as the body' : 'in a member'}`, top ? nested : withMember(context, nested));
  });
}

function duplicateKeys(context: CaseContext): BadCase {
  const { rng } = context;
  const start = startingBody(context);
  const name = rng.pick([...Object.keys(start), 'corpus']);
  const variants: Array<[string, string]> = [
    [`'${name}' twice at the top`, `{${JSON.stringify(name)}:1,${jsonText(start).slice(1, -1)}${Object.keys(start).length > 0 ? ',' : ''}${JSON.stringify(name)}:2}`],
    ['a key and its escaped spelling', `{"a\\u0062":1,"ab":2}`],
    ['a repeated key in a nested object', withMember(context, '{"x":"1","y":{"k":true,"k":false}}')],
    ['a repeated key inside an array', withMember(context, '[1,{"a":null,"a":null}]')],
  ];
  const [what, text] = rng.pick(variants);
  return parseRefusal(context, 'duplicate-keys', what, text);
}

function prototypeKeys(context: CaseContext): BadCase {
  const [what, text] = context.rng.pick<[string, string]>([
    ['__proto__ at the top', `{"__proto__":{"isAdmin":true},${jsonText(startingBody(context)).slice(1)}`],
    ['__proto__ spelled with an escape', '{"\\u005f_proto__":{"polluted":"yes"}}'],
    ['__proto__ in a nested object', withMember(context, '{"__proto__":{"polluted":"yes"}}')],
    ['constructor.prototype', `{"constructor":{"prototype":{"isAdmin":true}}}`],
    ['constructor in a nested object', withMember(context, '{"constructor":"x"}')],
  ]);
  return parseRefusal(context, 'prototype-keys', what, text);
}

function malformed(context: CaseContext): BadCase {
  const { rng } = context;
  const text = jsonText(startingBody(context));
  const cases: Array<[string, string | Buffer]> = [
    ['a truncated body', text.slice(0, rng.between(1, Math.max(1, text.length - 1)))],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d])],
    ['U+0000 in a string', withMember(context, '"a\\u0000b"')],
    ['an unpaired surrogate', withMember(context, '"\\udead"')],
    ['a number too large for a double', withMember(context, '1e400')],
    ['an empty body', ''],
    ['whitespace only', ' \r\n\t '],
    ['two values', '{} {}'],
    ['single quotes', "{'a':1}"],
    ['a trailing comma', '{"a":1,}'],
    ['a comment', '/* x */ {}'],
    ['NaN', '{"a":NaN}'],
    ['a leading zero', '{"a":01}'],
    ['a raw control character in a string', '{"a":"tab\there"}'],
  ];
  // A route whose body is optional reads an empty body as none; whitespace is still malformed JSON there.
  const [what, body] = rng.pick(context.op.bodyOptional ? cases.filter(([name]) => name !== 'an empty body') : cases);
  return parseRefusal(context, 'malformed-json', what, body);
}

function wrongContentType(context: CaseContext): BadCase {
  const { rng, op } = context;
  const types = ['application/xml', 'text/html; charset=utf-8', 'multipart/form-data; boundary=corpus', 'application/octet-stream', 'image/png', 'application/json-patch+json', 'ïnvalid/ty pe'];
  if (op.api !== 'oidc') types.push('application/x-www-form-urlencoded');
  const type = rng.pick(types);
  const body = type.startsWith('multipart') ? '--corpus\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--corpus--\r\n' : jsonText(startingBody(context));
  return baseCase(context, 'wrong-content-type', type, { headers: [['content-type', type]], body, status: 415, code: formCode(context, 'INVALID_CONTENT_TYPE') });
}

/** A JSON body read as text: a route with a JSON schema refuses the string it gets. */
function textForJson(context: CaseContext): BadCase[] {
  if (!context.op.jsonBody || context.op.otherBodyTypes.includes('text/plain')) return [];
  return [baseCase(context, 'wrong-content-type', 'text/plain for a JSON body', { headers: [['content-type', 'text/plain']], body: jsonText(startingBody(context)) })];
}

function oversizedBody(context: CaseContext): BadCase {
  const size = context.limits.bodyBytes + context.rng.between(1, 200_000);
  const body = `{"pad":"${'p'.repeat(size - 10)}"}`;
  return baseCase(context, 'oversized-body', `${body.length} bytes`, { headers: [JSON_TYPE], body, status: 413, code: formCode(context, 'REQUEST_ENTITY_TOO_LARGE') });
}

/** Parse-level refusals: any route whose method has a body, with or without a body schema. */
export function parseCases(context: CaseContext): BadCase[] {
  return [
    ...deepNesting(context),
    duplicateKeys(context),
    duplicateKeys(context),
    prototypeKeys(context),
    prototypeKeys(context),
    malformed(context),
    malformed(context),
    wrongContentType(context),
    ...textForJson(context),
    oversizedBody(context),
  ];
}

/** Values the route's body schema refuses: each case changes one place of a plausible body. */
export function fieldCases(context: CaseContext): BadCase[] {
  const { rng, op } = context;
  if (!op.jsonBody) return [];
  const start = startingBody(context);
  const json = (kind: string, what: string, body: unknown) => baseCase(context, kind, what, { headers: [JSON_TYPE], body: jsonText(body) });
  const out: BadCase[] = [];
  const places = slots(op.jsonBody);
  for (const slot of rng.sample(places.filter((s) => wrongTypes(s.schema).length > 0), 4)) {
    const type = rng.pick(wrongTypes(slot.schema));
    out.push(json('wrong-type', `${type} at ${slot.path.join('.')}`, withValueAt(start, slot.path, hostileValue(rng, type))));
  }
  const bounded = places.filter((s) => s.schema.type === 'string' && typeof s.schema.maxLength === 'number');
  for (const slot of rng.sample(bounded, 1)) {
    const max = slot.schema.maxLength as number;
    const value = `${hostileString(rng, 64)}${'x'.repeat(rng.chance(0.5) ? max + 1 : rng.between(max + 1, Math.max(max + 1, context.limits.bodyBytes - 4096)))}`;
    out.push(json('huge-string', `${value.length} characters at ${slot.path.join('.')} (maxLength ${max})`, withValueAt(start, slot.path, value)));
  }
  const numeric = places.filter((s) => (s.schema.type === 'integer' || s.schema.type === 'number') && (s.schema.maximum !== undefined || s.schema.type === 'integer'));
  for (const slot of rng.sample(numeric, 1)) {
    const candidates: unknown[] = [];
    if (slot.schema.maximum !== undefined) candidates.push(slot.schema.maximum + 1, 1e308, new RawJson('123456789012345678901234567890'));
    if (slot.schema.minimum !== undefined) candidates.push(slot.schema.minimum - 1, -1e308);
    if (slot.schema.type === 'integer') candidates.push(1.5, 2 ** 31 + 0.5);
    const value = rng.pick(candidates);
    out.push(json('huge-number', `${jsonText(value)} at ${slot.path.join('.')}`, withValueAt(start, slot.path, value)));
  }
  const enumerated = places.filter((s) => s.schema.enum || s.schema.anyOf?.every((b: { const?: unknown }) => 'const' in b));
  for (const slot of rng.sample(enumerated, 1)) {
    out.push(json('not-in-enumeration', `a hostile string at ${slot.path.join('.')}`, withValueAt(start, slot.path, `${hostileString(rng, 200)}\u0300`)));
  }
  for (const object of rng.sample(closedObjects(op.jsonBody), 1)) {
    let key = hostileKey(rng);
    if (object.declared.has(key)) key = `${key}-undeclared`;
    const value = hostileValue(rng, rng.pick<JsonType>(['string', 'number', 'array', 'object', 'null']));
    out.push(json('unknown-field', `'${key.slice(0, 30)}' in ${object.path.join('.') || 'the body'}`, withValueAt(start, [...object.path, key], value)));
  }
  const notObject = rng.pick<unknown>([[], [start], 'corpus', 42, null, true, hostileNumber(rng)]);
  out.push(json('not-an-object', `${jsonText(notObject).slice(0, 20)} as the body`, notObject));
  return out;
}

/** OAuth parameters that are not one short string: non-strings in JSON, repeats and overlong values in forms. */
export function providerParameterCases(context: CaseContext): BadCase[] {
  const { rng } = context;
  const name = rng.pick(['id', 'authRequestId', 'code', 'token', 'grant_type', 'client_id', 'access_token', 'state', 'x']);
  const type = rng.pick<JsonType>(['number', 'boolean', 'null', 'array', 'object']);
  const value = hostileValue(rng, type, 2000);
  const long = `${hostileString(rng, 32)}${'L'.repeat(rng.between(8193, 100_000))}`;
  const refused = (kind: string, what: string, headers: Array<[string, string]>, body: string): BadCase =>
    baseCase(context, kind, what, { headers, body, status: 400, code: 'invalid_request' });
  const form: [string, string] = ['content-type', 'application/x-www-form-urlencoded'];
  return [
    refused('non-string-parameter', `${name} as ${type} in JSON`, [JSON_TYPE], jsonText({ ...startingBody(context), [name]: value })),
    refused('repeated-parameter', `${name} twice in a form`, [form], `${pct(name)}=${pct(hostileString(rng, 100))}&${pct(name)}=2`),
    rng.chance(0.5)
      ? refused('overlong-parameter', `${name} of ${long.length} characters in a form`, [form], `${pct(name)}=${pct(long)}`)
      : refused('overlong-parameter', `${name} of ${long.length} characters in JSON`, [JSON_TYPE], jsonText({ [name]: long })),
    refused('prototype-keys', '__proto__ as a form name', [form], `__proto__=${pct('{"isAdmin":true}')}&id=x`),
  ];
}
