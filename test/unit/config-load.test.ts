/**
 * Loading the controller config file: the whole pipeline from text to a frozen typed config, positions of
 * problems, reporting everything in one run, YAML syntax, `${VAR}`, database targets and certificate files.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadControllerConfig } from '../../src/config/load.js';
import { CONFIG_FILE, EDGE, FIXTURES, HEAD, WEB, controllerYaml, lineOf, loadText, printed } from '../helpers/config-fixture.js';

const F = CONFIG_FILE;

describe('loading a valid file', () => {
  it('fills in every default of a file that gives only the required keys', async () => {
    const { config, diagnostics } = await loadControllerConfig(join(FIXTURES, 'minimal.yml'));

    assert.deepEqual(diagnostics, []);
    assert.ok(config?.edge);
    assert.equal(config.source, join(FIXTURES, 'minimal.yml'));
    assert.deepEqual(config.db, { kind: 'sqlite', path: join(FIXTURES, 'data/ctrl.db') });
    assert.deepEqual(config.identity, {
      cert: join(FIXTURES, 'pki/ctrl.cert.pem'),
      serverCert: join(FIXTURES, 'pki/ctrl.server.chain.pem'),
      key: join(FIXTURES, 'pki/ctrl.key.pem'),
      ca: join(FIXTURES, 'pki/ca.bundle.pem'),
    });
    assert.deepEqual(config.edge.api, {
      address: { host: 'ctrl.example.com', port: 1280, text: 'ctrl.example.com:1280' },
      sessionTimeoutMs: 30 * 60_000,
      disableOidcAutoBinding: false,
      authQueue: { concurrency: 8, maxQueued: 256, maxWaitMs: 10_000 },
    });
    assert.equal(config.edge.enrollment.edgeIdentityDurationMs, 180 * 60_000);
    assert.equal(config.edge.enrollment.edgeRouterDurationMs, 180 * 60_000);
    assert.deepEqual(config.edge.oidc, { accessTokenDurationMs: 1_800_000, idTokenDurationMs: 1_800_000, refreshTokenDurationMs: 86_400_000 });
    assert.deepEqual(config.edge.totp, { hostname: 'ctrl.example.com', maxAttempts: 5, lockoutMs: 300_000 });
    const [listener] = config.web;
    assert.deepEqual(listener?.options, {
      idleTimeoutMs: 5000,
      readTimeoutMs: 5000,
      writeTimeoutMs: 10_000,
      handshakeTimeoutMs: 10_000,
      headerTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 10_000,
      maxConnectionsPerClient: 256,
      minTLSVersion: 'TLSv1.2',
      maxTLSVersion: 'TLSv1.3',
    });
    assert.deepEqual(listener?.identity, config.identity);
    assert.deepEqual(listener?.apis.map((api) => api.binding), ['edge-client', 'edge-management', 'edge-oidc']);
  });

  it('maps every key of a file that writes them all', async () => {
    const { config, diagnostics } = await loadControllerConfig(join(FIXTURES, 'full.yml'));

    assert.deepEqual(diagnostics, []);
    assert.ok(config?.edge);
    assert.deepEqual(config.db, { kind: 'postgres', url: 'postgres://svc:secret@db.example.com:5432/svc' });
    assert.equal(config.identity.serverKey, join(FIXTURES, 'pki/web.key.pem'));
    assert.equal(config.edge.api.sessionTimeoutMs, 45 * 60_000);
    assert.equal(config.edge.enrollment.signingCert.ca, join(FIXTURES, 'pki/ca.bundle.pem'));
    assert.equal(config.edge.enrollment.edgeRouterDurationMs, 150 * 60_000);
    assert.deepEqual(config.edge.oidc, { accessTokenDurationMs: 900_000, idTokenDurationMs: 1_200_000, refreshTokenDurationMs: 43_200_000 });
    assert.equal(config.edge.totp.hostname, 'totp.example.com');
    const [client, oidc] = config.web;
    assert.deepEqual(client?.bindPoints[1], {
      interface: { host: '::', port: 1281, text: '[::]:1281' },
      address: { host: '2001:db8::1', port: 1281, text: '[2001:db8::1]:1281' },
    });
    assert.equal(oidc?.identity.cert, join(FIXTURES, 'pki/web.cert.pem'));
    assert.deepEqual(oidc?.options, {
      idleTimeoutMs: 10_000,
      readTimeoutMs: 7000,
      writeTimeoutMs: 60_000,
      handshakeTimeoutMs: 3000,
      headerTimeoutMs: 4000,
      requestTimeoutMs: 20_000,
      maxConnections: 500,
      maxConnectionsPerClient: 50,
      minTLSVersion: 'TLSv1.3',
      maxTLSVersion: 'TLSv1.3',
    });
  });

  it('returns a config frozen all the way down', async () => {
    const { config } = await loadText(controllerYaml());

    assert.ok(config?.edge);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.edge.api.address));
    assert.ok(Object.isFrozen(config.web[0]?.apis));
    const oidc = config.web[0]?.apis.find((api) => api.binding === 'edge-oidc');
    assert.ok(oidc?.binding === 'edge-oidc' && Object.isFrozen(oidc.options.redirectURIs[0]));
    assert.throws(() => {
      (config.edge as { totp: unknown }).totp = {};
    }, TypeError);
  });
});

describe('reading the file', () => {
  it('reports a file that cannot be read as one error at 1:1 naming the OS error', async () => {
    const missing = join(FIXTURES, 'no-such.yml');
    const { config, diagnostics } = await loadControllerConfig(missing);

    assert.equal(config, undefined);
    assert.equal(diagnostics.length, 1);
    assert.match(printed({ config, diagnostics })[0] ?? '', new RegExp(`^${missing}:1:1: cannot read the configuration file: ENOENT`));
  });

  it('reports YAML syntax errors with their positions and nothing else', async () => {
    const text = `${HEAD}edge: [unclosed\nweb: 1\nweb: 2\n`;
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [
      `${F}:9:1: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      `${F}:10:1: Map keys must be unique`,
    ]);
  });

  it('says the file must be a mapping when it is empty', async () => {
    const result = await loadText('');

    assert.deepEqual(printed(result), [`${F}:1:1: expected a mapping, got nothing`]);
  });
});

describe('reporting problems', () => {
  it('reports every problem of the file in one run, in file order', async () => {
    const text = controllerYaml({
      head: HEAD.replace('v: 3', 'v: 2').replace('ca: pki/ca.bundle.pem', 'ca: pki/missing.pem'),
      edge: EDGE.replace('api:\n', 'api:\n    sessionTimeout: soon\n'),
      web: WEB.replace('binding: edge-management', 'binding: fabric'),
    });
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [
      `${F}:1:4: v: must be 3`,
      `${F}:7:7: identity.ca: cannot read '${join(FIXTURES, 'pki/missing.pem')}': ENOENT: no such file or directory`,
      `${F}:10:21: edge.api.sessionTimeout: 'soon' is not a duration (use a number with a unit: ms, s, m, h; e.g. 30s, 1h30m)`,
      `${F}:23:18: web[0].apis[1].binding: binding 'fabric' is not supported by this controller`,
    ]);
  });

  it('suggests the closest key for an unknown key and points at the key', async () => {
    const result = await loadText(controllerYaml({ edge: EDGE.replace('  api:', '  apii:') }));

    assert.deepEqual(printed(result), [
      `${F}:8:1: edge.api: missing required key`,
      `${F}:9:3: edge.apii: unknown key 'apii' (did you mean 'api'?)`,
    ]);
  });

  it('treats keys as case-sensitive', async () => {
    const result = await loadText(controllerYaml({ head: HEAD.replace('db:', 'DB:') }));

    assert.ok(printed(result).includes(`${F}:2:1: DB: unknown key 'DB' (did you mean 'db'?)`));
  });

  it('points at the nearest existing parent for a missing key', async () => {
    const result = await loadText(controllerYaml({ edge: EDGE.replace('    address: ctrl.example.com:1280\n', '    sessionTimeout: 30m\n') }));

    assert.deepEqual(printed(result), [`${F}:9:3: edge.api.address: missing required key`]);
  });

  it('points at the value for a value of the wrong type', async () => {
    const result = await loadText(controllerYaml({ edge: EDGE.replace('api:\n', 'api:\n    disableOidcAutoBinding: "no"\n') }));

    assert.deepEqual(printed(result), [`${F}:10:29: edge.api.disableOidcAutoBinding: expected a boolean, got a string ("no")`]);
  });

  it('reports sections of the wrong shape without failing on them', async () => {
    const text = 'db: x.db\nidentity:\nedge:\nweb:\n  -\n  - name: a\n    options:\n    identity: 3\n';
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [
      `${F}:2:1: identity: expected a mapping, got nothing`,
      `${F}:3:1: edge: expected a mapping, got nothing`,
      `${F}:5:3: web[0]: expected a mapping, got nothing`,
      `${F}:6:3: web[1].bindPoints: missing required key`,
      `${F}:6:3: web[1].apis: missing required key`,
      `${F}:7:5: web[1].options: expected a mapping, got nothing`,
      `${F}:8:15: web[1].identity: expected a mapping, got a number (3)`,
    ]);
  });

  it('reports a missing required section at the top of the file', async () => {
    const result = await loadText(controllerYaml({ web: '' }));

    assert.deepEqual(printed(result), [`${F}:1:1: web: missing required key`]);
  });
});

describe('environment variables', () => {
  it('substitutes ${VAR} in string values', async () => {
    const text = controllerYaml({ head: HEAD.replace('./data/ctrl.db', 'postgres://${DB_USER}@${DB_HOST}/svc') });
    const { config, diagnostics } = await loadText(text, { DB_USER: 'svc', DB_HOST: 'db.internal' });

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.db, { kind: 'postgres', url: 'postgres://svc@db.internal/svc' });
  });

  it('reports an unset variable at its value, once', async () => {
    const text = controllerYaml({ edge: EDGE.replace('ctrl.example.com:1280', '${CTRL_ADDRESS}') });
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [`${F}:10:14: edge.api.address: environment variable 'CTRL_ADDRESS' is not set`]);
  });

  it('keeps $${ as a literal ${', async () => {
    // A function replacement, because in a replacement string `$$` itself means `$`.
    const text = controllerYaml({ head: HEAD.replace('./data/ctrl.db', () => './data/$${NOT_A_VAR}.db') });
    const { config, diagnostics } = await loadText(text);

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.db, { kind: 'sqlite', path: join(FIXTURES, 'data/${NOT_A_VAR}.db') });
  });
});

describe('database target', () => {
  it('keeps :memory: as it is', async () => {
    const { config } = await loadText(controllerYaml({ head: HEAD.replace('./data/ctrl.db', "':memory:'") }));

    assert.deepEqual(config?.db, { kind: 'sqlite', path: ':memory:' });
  });

  it('refuses a PostgreSQL URL without a host', async () => {
    const result = await loadText(controllerYaml({ head: HEAD.replace('./data/ctrl.db', 'postgresql:///svc') }));

    assert.deepEqual(printed(result), [
      `${F}:2:5: db: 'postgresql:///svc' is not a usable PostgreSQL URL (expected postgres://user@host[:port]/database)`,
    ]);
  });

  it('refuses other URL schemes rather than treating them as file names', async () => {
    const result = await loadText(controllerYaml({ head: HEAD.replace('./data/ctrl.db', 'mysql://db/svc') }));

    assert.match(printed(result)[0] ?? '', /db: database URL scheme 'mysql' is not supported/);
  });
});

describe('certificate files', () => {
  it('reports each unreadable file at its own value', async () => {
    const text = controllerYaml({
      head: HEAD.replace('pki/ctrl.key.pem', 'pki'),
      edge: EDGE.replace('pki/signing.key.pem', '/nonexistent/signing.key.pem'),
    });
    const result = await loadText(text);

    assert.deepEqual(printed(result), [
      `${F}:6:8: identity.key: '${join(FIXTURES, 'pki')}' is not a file`,
      `${F}:${lineOf(text, 'signing.key')}:12: edge.enrollment.signingCert.key: cannot read '/nonexistent/signing.key.pem': ENOENT: no such file or directory`,
    ]);
  });

  it('checks the files of a listener identity too', async () => {
    const web = `${WEB}    identity:
      cert: pki/web.cert.pem
      server_cert: pki/nope.pem
      key: pki/web.key.pem
      ca: pki/ca.bundle.pem
`;
    const result = await loadText(controllerYaml({ web }));

    assert.equal(result.diagnostics.length, 1);
    assert.match(printed(result)[0] ?? '', /web\[0\]\.identity\.server_cert: cannot read '.*pki\/nope\.pem': ENOENT/);
  });
});
