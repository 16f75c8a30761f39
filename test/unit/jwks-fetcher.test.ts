/**
 * Fetching external JWT signers' key sets against a real local HTTPS server whose certificate comes from a test PKI:
 * trust, caching and rate-limited refresh, and every limit that keeps an administrator's URL from being abused
 * (scheme, private and link-local addresses on every hop, pinned addresses, size, redirects, time).
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_EXTERNAL_JWT } from '../../src/config/edge-rules.js';
import type { ExternalJwtConfig } from '../../src/config/types.js';
import { createControllerPki, type PkiPaths } from '../../src/pki/index.js';
import { addressRefusal, classifyAddress } from '../../src/policy/fetch-address.js';
import { manualClock } from '../../src/shared/clock.js';
import { createJwksFetcher, JwksFetchError, type JwksFetcherOptions, type JwksFetchFailure } from '../../src/services/external-jwt/jwks-fetcher.js';
import { JWKS_TEST_HOST, signingKey, startJwksServer, type JwksServer } from '../helpers/external-jwt.js';

const failsWith = (reason: JwksFetchFailure) => (error: unknown) => {
  assert.ok(error instanceof JwksFetchError, String(error));
  assert.equal(error.reason, reason, error.message);
  return true;
};

describe('the JWKS fetcher', () => {
  let dir: string;
  let pki: PkiPaths;
  let server: JwksServer;
  let caPems: string[];
  const clock = manualClock(new Date('2030-01-01T00:00:00Z'));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-jwks-test-'));
    pki = await createControllerPki(dir, { hosts: ['127.0.0.1'], commonName: 'jwks-test' });
    caPems = [readFileSync(pki.caBundle, 'utf8')];
    server = await startJwksServer(pki);
    server.jwks.keys.push((await signingKey('k1')).publicJwk);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fetcher = (config: Partial<ExternalJwtConfig> = {}, options: Partial<JwksFetcherOptions> = {}) =>
    createJwksFetcher({ config: { ...DEFAULT_EXTERNAL_JWT, ...config }, clock, caPems, ...options });
  let signerCount = 0;
  /** A source for a new signer, so cache entries of earlier tests never answer. */
  const source = (path: string, origin = server.origin) => ({ signerId: `signer-${++signerCount}`, url: `${origin}${path}` });

  it('fetches a key set over HTTPS trusting the controller CA, then answers from its cache', async () => {
    const jwks = fetcher();
    const from = source('/jwks');
    const before = server.hits.get('/jwks') ?? 0;
    assert.deepEqual((await jwks.keys(from)).keys.map((k) => k.kid), ['k1']);
    assert.deepEqual((await jwks.keys(from)).keys.map((k) => k.kid), ['k1']);
    assert.equal(server.hits.get('/jwks'), before + 1);
  });

  it('re-fetches for an unknown kid at most once per refresh interval', async () => {
    const jwks = fetcher({ jwksRefreshIntervalMs: 30_000 });
    const from = source('/jwks');
    const before = server.hits.get('/jwks') ?? 0;
    await jwks.keys(from);
    assert.equal((await jwks.refresh(from)).refreshed, false);
    clock.advance(29_999);
    assert.equal((await jwks.refresh(from)).refreshed, false);
    clock.advance(1);
    assert.equal((await jwks.refresh(from)).refreshed, true);
    assert.equal(server.hits.get('/jwks'), before + 2);
  });

  it('re-fetches a cached set once it is older than the maximum age, so withdrawn keys stop verifying', async () => {
    const jwks = fetcher({}, { maxAgeMs: 60_000 });
    const from = source('/jwks');
    const before = server.hits.get('/jwks') ?? 0;
    await jwks.keys(from);
    clock.advance(60_000);
    await jwks.keys(from);
    assert.equal(server.hits.get('/jwks'), before + 2);
  });

  it('does not trust a server whose certificate the controller CAs did not issue', async () => {
    await assert.rejects(fetcher({}, { caPems: [] }).keys(source('/jwks')), failsWith('tls'));
  });

  it('refuses plain http unless allowHttpJwks is set, and URLs with credentials', async () => {
    await assert.rejects(fetcher().keys(source('/jwks', 'http://127.0.0.1:9')), failsWith('refused-url'));
    await assert.rejects(fetcher().keys(source('/jwks', server.origin.replace('https://', 'https://user:pw@'))), failsWith('refused-url'));
  });

  it('fetches from a plain http endpoint when allowHttpJwks is set', async () => {
    const plain = createHttpServer((_req, res) => res.writeHead(200).end(JSON.stringify(server.jwks)));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = plain.address() as AddressInfo;
      assert.deepEqual((await fetcher({ allowHttpJwks: true }).keys(source('/jwks', `http://127.0.0.1:${port}`))).keys.map((k) => k.kid), ['k1']);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('refuses a loopback endpoint when refusePrivateAddresses is set, without connecting', async () => {
    const before = server.hits.get('/jwks') ?? 0;
    await assert.rejects(fetcher({ refusePrivateAddresses: true }).keys(source('/jwks')), (error: unknown) => {
      assert.ok(error instanceof JwksFetchError && error.reason === 'refused-address');
      assert.match(error.message, /127\.0\.0\.1 is a loopback address, refused by edge\.externalJwt\.refusePrivateAddresses/);
      return true;
    });
    assert.equal(server.hits.get('/jwks') ?? 0, before);
  });

  it('refuses a host name when any one of its addresses is private', async () => {
    const resolve = async () => ['93.184.216.34', '10.1.2.3'];
    await assert.rejects(fetcher({ refusePrivateAddresses: true }, { resolve }).keys(source('/jwks', 'https://idp.example.test')), failsWith('refused-address'));
  });

  it('always refuses link-local and cloud metadata addresses, whatever the configuration', async () => {
    await assert.rejects(fetcher().keys(source('/keys', 'https://169.254.169.254')), failsWith('refused-address'));
    await assert.rejects(fetcher({}, { resolve: async () => ['fe80::1'] }).keys(source('/keys', 'https://metadata.example.test')), failsWith('refused-address'));
    await assert.rejects(fetcher({}, { resolve: async () => ['::ffff:169.254.169.254'] }).keys(source('/keys', 'https://mapped.example.test')), failsWith('refused-address'));
  });

  it('connects to the address it checked, with TLS still verifying the host name', async () => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ['127.0.0.1'];
    };
    const port = new URL(server.origin).port;
    const jwks = await fetcher({}, { resolve }).keys(source('/jwks', `https://${JWKS_TEST_HOST}:${port}`));
    assert.deepEqual(jwks.keys.map((k) => k.kid), ['k1']);
    assert.deepEqual(asked, [JWKS_TEST_HOST]);
  });

  it('refuses a body larger than jwksMaxBytes, declared or streamed', async () => {
    server.route('/declared-big', (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)));
    server.route('/streamed-big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 10; i++) res.write('x'.repeat(1000));
      res.end();
    });
    await assert.rejects(fetcher({ jwksMaxBytes: 4096 }).keys(source('/declared-big')), failsWith('too-large'));
    await assert.rejects(fetcher({ jwksMaxBytes: 4096 }).keys(source('/streamed-big')), failsWith('too-large'));
  });

  it('follows up to jwksMaxRedirects redirects and refuses one more', async () => {
    server.route('/hop-1', (_req, res) => res.writeHead(302, { location: '/hop-2' }).end());
    server.route('/hop-2', (_req, res) => res.writeHead(307, { location: `${server.origin}/jwks` }).end());
    server.route('/loop', (_req, res) => res.writeHead(301, { location: '/loop' }).end());
    assert.deepEqual((await fetcher({ jwksMaxRedirects: 2 }).keys(source('/hop-1'))).keys.map((k) => k.kid), ['k1']);
    await assert.rejects(fetcher({ jwksMaxRedirects: 1 }).keys(source('/hop-1')), failsWith('too-many-redirects'));
    await assert.rejects(fetcher().keys(source('/loop')), failsWith('too-many-redirects'));
  });

  it('checks every redirect hop: a redirect to a metadata address or to http is refused', async () => {
    server.route('/to-metadata', (_req, res) => res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end());
    server.route('/to-http', (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:9/jwks' }).end());
    await assert.rejects(fetcher().keys(source('/to-metadata')), failsWith('refused-address'));
    await assert.rejects(fetcher().keys(source('/to-http')), failsWith('refused-url'));
  });

  it('gives up when the whole fetch, name resolution included, takes longer than jwksTimeout', async () => {
    server.route('/hang', () => {
      /* never answers */
    });
    await assert.rejects(fetcher({ jwksTimeoutMs: 200 }).keys(source('/hang')), failsWith('timeout'));
    const port = new URL(server.origin).port;
    const byName = fetcher({ jwksTimeoutMs: 200 }, { resolve: async () => ['127.0.0.1'] });
    await assert.rejects(byName.keys(source('/hang', `https://${JWKS_TEST_HOST}:${port}`)), failsWith('timeout'));
    const stuckResolver = fetcher({ jwksTimeoutMs: 200 }, { resolve: () => new Promise<string[]>(() => {}) });
    await assert.rejects(stuckResolver.keys(source('/jwks', 'https://stuck.example.test')), failsWith('timeout'));
  });

  it('refuses answers that are not a 200 JWK Set', async () => {
    server.route('/not-json', (_req, res) => res.writeHead(200).end('<html></html>'));
    server.route('/no-keys', (_req, res) => res.writeHead(200).end('{"keys": "none"}'));
    await assert.rejects(fetcher().keys(source('/missing')), failsWith('http-status'));
    await assert.rejects(fetcher().keys(source('/not-json')), failsWith('invalid-jwks'));
    await assert.rejects(fetcher().keys(source('/no-keys')), failsWith('invalid-jwks'));
  });

  it('logs one line per failed fetch and remembers the failure for the refresh interval', async () => {
    const lines: Array<{ details: Record<string, unknown>; message: string }> = [];
    const jwks = fetcher({ jwksRefreshIntervalMs: 30_000 }, { log: { warn: (details, message) => lines.push({ details, message }) } });
    const from = source('/gone');
    await assert.rejects(jwks.keys(from), failsWith('http-status'));
    await assert.rejects(jwks.keys(from), failsWith('http-status'));
    await assert.rejects(jwks.refresh(from), failsWith('http-status'));
    assert.equal(server.hits.get('/gone'), 1);
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0]?.details, { signerId: from.signerId, jwksEndpoint: from.url, reason: 'http-status' });
    assert.match(lines[0]?.message ?? '', new RegExp(`could not fetch the JWKS of external JWT signer ${from.signerId}: .* answered HTTP 404`));
    clock.advance(30_000);
    await assert.rejects(jwks.keys(from), failsWith('http-status'));
    assert.equal(server.hits.get('/gone'), 2);
  });
});

describe('which addresses a JWKS may be fetched from', () => {
  it('classifies IPv4 and IPv6 addresses, including IPv6 forms that embed IPv4', () => {
    const cases: Array<[string, string]> = [
      ['8.8.8.8', 'public'],
      ['169.254.169.254', 'link-local'],
      ['127.0.0.53', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', 'public'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'reserved'],
      ['2606:4700::1111', 'public'],
      ['fe80::1%eth0', 'link-local'],
      ['febf::1', 'link-local'],
      ['fd00:ec2::254', 'metadata'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fd12:3456::1', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['2002:a9fe:a9fe::1', 'link-local'],
    ];
    assert.deepEqual(cases.map(([ip]) => [ip, classifyAddress(ip)]), cases);
  });

  it('refuses link-local always and other non-public addresses only when asked', () => {
    assert.match(addressRefusal('169.254.169.254', false) ?? '', /link-local address \(cloud metadata/);
    assert.equal(addressRefusal('10.0.0.1', false), undefined);
    assert.match(addressRefusal('10.0.0.1', true) ?? '', /private address, refused by edge\.externalJwt\.refusePrivateAddresses/);
    assert.equal(addressRefusal('8.8.8.8', true), undefined);
  });
});
