/**
 * No input answers 5xx: a generated corpus of bad requests runs against every operation of the route tables, read
 * from the served OpenAPI documents (and the OIDC provider's route table), on a real controller over TLS. Every case
 * must be refused with a 4xx in the error envelope (the RFC 6749 shape under /oidc, except for refusals made before
 * any route is known), echo no more than a short excerpt of what it sent, and leave the store exactly as it was.
 * One test per route class. Cases come from a seeded PRNG: the seed is printed, and SVC_CORPUS_SEED=<seed> repeats a run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';
import { VALUE_EXCERPT_CHARS } from '../../src/errors/excerpt.js';
import { edgeClientRoutes } from '../../src/http/edge-client/routes.js';
import { edgeManagementRoutes } from '../../src/http/edge-management/routes.js';
import { MAX_JSON_DEPTH } from '../../src/http/kit/json-body.js';
import { MAX_REQUEST_HEAD_BYTES, SOCKET_MAX_HEADER_BYTES } from '../../src/http/kit/server-errors.js';
import { BODY_LIMIT_BYTES } from '../../src/http/listener-app.js';
import { oidcRoutes } from '../../src/oidc/routes.js';
import { casesFor, operationSeed, type BadCase, type CaseLimits, type TokenName } from '../helpers/bad-input/corpus.js';
import { collectionOf, operationsFromOpenApi, providerOperations, type Operation } from '../helpers/bad-input/operations.js';
import { corpusSeed, createRng } from '../helpers/bad-input/values.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { signingCertificate, signerBody } from '../helpers/external-jwt.js';
import { authPolicyBody, managementClient, nonAdminToken } from '../helpers/management.js';
import { rawHttpsRequest, type RawResponse } from '../helpers/raw-https.js';
import { snapshotDifference, storeSnapshot } from '../helpers/store-snapshot.js';

const LIMITS: CaseLimits = {
  maxJsonDepth: MAX_JSON_DEPTH,
  bodyBytes: BODY_LIMIT_BYTES,
  headBytes: MAX_REQUEST_HEAD_BYTES,
  socketHeadBytes: SOCKET_MAX_HEADER_BYTES,
  // Fastify's default maxParamLength.
  maxParamLength: 100,
};
/** Requests in flight at once: enough to keep both processes busy, few enough for 2 cores. */
const CONCURRENCY = 6;
/** An error answer echoes short excerpts only; no case may get a body larger than this. */
const MAX_ERROR_BODY_BYTES = 4096;

const seed = corpusSeed();

/** What is wrong with `res` as the refusal of `c` on `op`, or undefined when it is right. */
function problemWith(op: Operation, c: BadCase, res: RawResponse): string | undefined {
  if (res.status < 400 || res.status > 499) return `status ${res.status}, not 4xx`;
  if (c.status !== undefined && res.status !== c.status) return `status ${res.status}, not ${c.status}`;
  if (res.body.length > MAX_ERROR_BODY_BYTES) return `an error body of ${res.body.length} bytes`;
  const requestId = res.headers['svc-request-id']?.[0];
  if (!requestId) return 'no svc-request-id header';
  if (!/^application\/json/.test(res.headers['content-type']?.[0] ?? '')) return `content type ${res.headers['content-type']?.[0]}`;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'a body that is not JSON';
  }
  if (op.api === 'oidc' && !c.unrouted) {
    if (typeof body.error !== 'string' || !/^[a-z_]+$/.test(body.error)) return 'not the RFC 6749 error shape';
    if (typeof body.error_description !== 'string' || !/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(body.error_description)) return 'an error_description outside RFC 6749 §5.2';
    if (c.code !== undefined && body.error !== c.code) return `error ${body.error}, not ${c.code}`;
    return undefined;
  }
  if (Object.keys(body).sort().join() !== 'error,meta' || typeof body.meta !== 'object') return 'not the {error, meta} envelope';
  const { code, message, requestId: bodyRequestId, cause } = body.error ?? {};
  const entry = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE];
  if (!entry) return `code ${code} is not in the catalogue`;
  if (entry.status !== res.status) return `code ${code} has status ${entry.status} in the catalogue, answered ${res.status}`;
  if (typeof message !== 'string') return 'no message';
  if (bodyRequestId !== requestId) return 'error.requestId differs from svc-request-id';
  if (c.code !== undefined && code !== c.code) return `code ${code}, not ${c.code}`;
  if (typeof cause?.value === 'string' && cause.value.length > VALUE_EXCERPT_CHARS + 1) return `cause.value of ${cause.value.length} characters`;
  return undefined;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe(`bad-input corpus (${testDialect})`, () => {
  let ctl: TestController;
  const operations: Operation[] = [];
  const tokens: Record<TokenName, string | undefined> = { admin: undefined, user: undefined, none: undefined };
  const idCache = new Map<string, string>();
  const totals = { cases: 0, operations: 0, ms: 0 };

  before(async () => {
    ctl = await startTestController({ modify: (config) => config.web[0].apis.push({ binding: 'edge-oidc' }) });
    tokens.admin = await ctl.adminToken();
    tokens.user = await nonAdminToken(ctl, 'corpus-user');
    // Something for every collection to list, so that path ids can be real ones.
    const admin = managementClient(ctl, tokens.admin);
    await admin.post('/identities', { name: 'corpus-device', type: 'Device', isAdmin: false, enrollment: { ott: true } });
    await admin.post('/auth-policies', authPolicyBody('corpus-policy'));
    await admin.post('/external-jwt-signers', signerBody('corpus-signer', { jwksEndpoint: null, certPem: (await signingCertificate(ctl.pki)).certPem }));
    for (const spec of (await ctl.fetch('/edge/client/v1/specs')).json().data as Array<{ id: string }>) {
      const document = (await ctl.fetch(`/edge/client/v1/specs/${spec.id}/spec`)).json().data;
      const prefix = new URL(document.servers[0].url).pathname.replace(/\/$/, '');
      operations.push(...operationsFromOpenApi(spec.id as 'edge-client' | 'edge-management', prefix, document));
    }
    operations.push(...providerOperations());
  });

  after(async () => {
    console.log(`bad-input corpus (${testDialect}): ${totals.cases} cases against ${totals.operations} operations in ${(totals.ms / 1000).toFixed(1)} s; seed ${seed} (SVC_CORPUS_SEED=${seed} repeats it)`);
    await ctl?.close();
  });

  /** A real value for each path parameter, from the first item of the collection it indexes. */
  async function realIds(op: Operation, token: TokenName): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    for (const name of op.pathParams) {
      const url = `${op.prefix}${collectionOf(op.path)}`;
      const key = `${url} ${token}`;
      if (!idCache.has(key)) {
        const res = await ctl.fetch(url, { headers: tokens[token] ? { 'svc-session': tokens[token] as string } : {} });
        idCache.set(key, res.status === 200 ? String(res.json().data?.[0]?.id ?? 'corpus-none') : 'corpus-none');
      }
      ids[name] = idCache.get(key) as string;
    }
    return ids;
  }

  async function send(c: BadCase): Promise<RawResponse> {
    const session = tokens[c.token];
    return rawHttpsRequest(
      { host: '127.0.0.1', port: ctl.ports[0] as number, ca: ctl.ca },
      {
        method: c.method,
        target: c.target,
        headers: [...c.headers, ...(session ? ([['svc-session', session]] as Array<[string, string]>) : [])],
        ...(c.body !== undefined ? { body: c.body } : {}),
        ...(c.frameBody !== undefined ? { frameBody: c.frameBody } : {}),
        ...(c.omitHost ? { omitHost: true } : {}),
      },
    );
  }

  /** Runs the corpus of every operation of `group`; returns what went wrong, one line each. */
  async function attack(group: string): Promise<{ failures: string[]; cases: number }> {
    const failures: string[] = [];
    let count = 0;
    for (const op of operations.filter((o) => o.group === group)) {
      const rng = createRng(operationSeed(seed, op.operationId));
      const usual: TokenName = op.api === 'edge-management' ? 'admin' : 'user';
      const token: TokenName = !op.authenticated ? 'none' : rng.chance(0.15) ? (usual === 'admin' ? 'user' : 'admin') : usual;
      const cases = casesFor({ rng, op, ids: await realIds(op, token), token, limits: LIMITS });
      count += cases.length;
      const before = await storeSnapshot(ctl.running.database);
      const answers = await inParallel(cases, CONCURRENCY, async (c) => {
        try {
          return problemWith(op, c, await send(c));
        } catch (error) {
          return `no answer: ${(error as Error).message}`;
        }
      });
      answers.forEach((problem, i) => {
        const c = cases[i] as BadCase;
        if (problem) failures.push(`${op.method} ${op.prefix}${op.path} [${c.kind}: ${c.what}] (${c.token}): ${problem}`);
      });
      const changed = snapshotDifference(before, await storeSnapshot(ctl.running.database));
      if (Object.keys(changed).length > 0) failures.push(`${op.method} ${op.prefix}${op.path}: the store changed: ${JSON.stringify(changed).slice(0, 2000)}`);
    }
    return { failures, cases: count };
  }

  describe('the refusals the corpus relies on, one by one', () => {
    const json = (body: string, token?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'svc-session': token } : {}) },
      body,
    });

    it('refuses a field holding thousands of nested arrays with 400 COULD_NOT_PARSE_BODY naming the field (issue 11: was 500)', async () => {
      const res = await ctl.fetch('/edge/management/v1/identities', json(`{"name":"n","type":"User","isAdmin":false,"tags":${'['.repeat(5000)}${']'.repeat(5000)}}`, tokens.admin));
      assert.equal(res.status, 400);
      const { error } = res.json();
      assert.equal(error.code, 'COULD_NOT_PARSE_BODY');
      assert.match(error.message, /nests deeper than 32 levels at \$\.tags\[0\]/);
      assert.equal(error.cause.field.split('.')[0], 'tags');
    });

    it('refuses a duplicate key instead of taking the last value', async () => {
      const res = await ctl.fetch('/edge/management/v1/identities', json('{"name":"dup","type":"User","isAdmin":false,"isAdmin":true}', tokens.admin));
      assert.equal(res.status, 400);
      assert.equal(res.json().error.code, 'COULD_NOT_PARSE_BODY');
      assert.equal(res.json().error.cause.field, 'isAdmin');
    });

    it('echoes a rejected value as an escaped excerpt of at most 64 characters', async () => {
      const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', json(JSON.stringify({ username: `\u202e${'u'.repeat(200_000)}`, password: 'long-enough' })));
      assert.equal(res.status, 400);
      const { error } = res.json();
      assert.equal(error.cause.field, 'username');
      assert.equal(error.cause.value, `\\u202e${'u'.repeat(VALUE_EXCERPT_CHARS - 6)}…`);
      assert.ok(res.text.length < 1024, `${res.text.length} characters`);
    });

    it('refuses a __proto__ key in an OIDC login body in the OAuth shape, and pollutes nothing', async () => {
      const res = await ctl.fetch('/oidc/login/password', json('{"id":"x","__proto__":{"isAdmin":true}}'));
      assert.equal(res.status, 400);
      assert.equal(res.json().error, 'invalid_request');
      assert.match(res.json().error_description, /__proto__/);
      assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
    });

    it('answers a request head over 16 KiB with 431 in the envelope of the API, and in the OAuth shape under /oidc', async () => {
      const pad = { 'x-pad': 'p'.repeat(20_000) };
      const edge = await ctl.fetch('/edge/client/v1/version', { headers: pad });
      assert.equal(edge.status, 431);
      assert.equal(edge.json().error.code, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
      assert.equal(edge.json().error.requestId, edge.headers['svc-request-id']);
      const oidc = await ctl.fetch('/oidc/keys', { headers: pad });
      assert.equal(oidc.status, 431);
      assert.equal(oidc.json().error, 'invalid_request');
    });

    it('answers a head Node refuses before routing (over 64 KiB) with 431 in the envelope and closes the connection', async () => {
      const res = await rawHttpsRequest({ host: '127.0.0.1', port: ctl.ports[0] as number, ca: ctl.ca }, { method: 'GET', target: '/oidc/keys', headers: [['x-pad', 'p'.repeat(300_000)]] });
      assert.equal(res.status, 431);
      assert.deepEqual(res.headers.connection, ['close']);
      const body = JSON.parse(res.text);
      assert.equal(body.error.code, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
      assert.equal(body.error.requestId, res.headers['svc-request-id']?.[0]);
    });
  });

  it('finds every operation of the route tables in the served documents and the provider table', () => {
    const count = (api: string) => operations.filter((o) => o.api === api).length;
    assert.equal(count('edge-client'), edgeClientRoutes.length);
    assert.equal(count('edge-management'), edgeManagementRoutes.length);
    assert.equal(count('oidc'), oidcRoutes.reduce((n, route) => n + [route.method].flat().length, 0));
  });

  it('refuses every bad request of every route class with a 4xx in its error shape, changing nothing', async (t) => {
    const groups = [...new Set(operations.map((o) => o.group))];
    for (const group of groups) {
      await t.test(`${group}: every bad request is refused with a 4xx in its error shape and changes nothing`, async (sub) => {
        const started = performance.now();
        const { failures, cases } = await attack(group);
        const ms = performance.now() - started;
        totals.cases += cases;
        totals.operations += operations.filter((o) => o.group === group).length;
        totals.ms += ms;
        sub.diagnostic(`${cases} cases in ${(ms / 1000).toFixed(1)} s, seed ${seed}`);
        assert.deepEqual(failures, [], `seed ${seed} (SVC_CORPUS_SEED=${seed} repeats it):\n${failures.join('\n')}`);
      });
    }
  });
});
