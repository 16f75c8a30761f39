/**
 * Web listener rules (spec: Web listener rules): several HTTPS listeners and bind points, each serving only the
 * bindings it lists, auto-binding of edge-oidc, an OIDC-only listener, and client certificates that are
 * requested but not required.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`listeners and bindings (${testDialect})`, () => {
  let ctl: TestController;
  let url: (i: number) => string;
  before(async () => {
    ctl = await startTestController({
      extraPorts: 2,
      modify(config, ports) {
        const [a, b, c] = ports.map((p) => `127.0.0.1:${p}`);
        config.web = [
          { name: 'client', bindPoints: [{ interface: a, address: a }, { interface: c, address: c }], apis: [{ binding: 'edge-client' }] },
          { name: 'admin', bindPoints: [{ interface: b, address: b }], apis: [{ binding: 'edge-management' }] },
        ];
      },
    });
    url = (i) => `https://127.0.0.1:${ctl.ports[i]}`;
  });
  after(async () => ctl.close());

  it('serves each binding only on the listeners that list it', async () => {
    assert.equal((await ctl.fetch(`${url(0)}/edge/client/v1/version`)).status, 200);
    assert.equal((await ctl.fetch(`${url(0)}/edge/management/v1/version`)).status, 404);
    assert.equal((await ctl.fetch(`${url(1)}/edge/management/v1/version`)).status, 200);
    assert.equal((await ctl.fetch(`${url(1)}/edge/client/v1/version`)).status, 404);
  });

  it('answers on every bind point of a listener and lists each in apiBaseUrls', async () => {
    const viaSecond = await ctl.fetch(`${url(2)}/edge/client/v1/version`);
    assert.equal(viaSecond.status, 200);
    const { apiVersions } = viaSecond.json().data;
    assert.deepEqual(apiVersions['edge-client'].v1.apiBaseUrls, [`${url(0)}/edge/client/v1`, `${url(2)}/edge/client/v1`]);
    assert.deepEqual(apiVersions['edge-management'].v1.apiBaseUrls, [`${url(1)}/edge/management/v1`]);
  });

  it('auto-binds edge-oidc onto the listener hosting edge-client only', async () => {
    const { apiVersions, capabilities } = (await ctl.fetch(`${url(0)}/edge/client/v1/version`)).json().data;
    assert.deepEqual(apiVersions['edge-oidc'].v1.apiBaseUrls, [`${url(0)}/oidc`, `${url(2)}/oidc`]);
    assert.ok(capabilities.includes('OIDC_AUTH'));
  });

  it('accepts a connection with or without a client certificate', async () => {
    const cert = readFileSync(ctl.pki.clientCert, 'utf8');
    const key = readFileSync(ctl.pki.clientKey, 'utf8');
    assert.equal((await ctl.fetch(`${url(0)}/edge/client/v1/version`, { cert, key })).status, 200);
    assert.equal((await ctl.fetch(`${url(0)}/edge/client/v1/version`)).status, 200);
  });
});

describe(`an explicit edge-oidc listener (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({
      extraPorts: 1,
      modify(config, ports) {
        const [a, b] = ports.map((p) => `127.0.0.1:${p}`);
        config.web = [
          { name: 'api', bindPoints: [{ interface: a, address: a }], apis: [{ binding: 'edge-client' }, { binding: 'edge-management' }] },
          { name: 'oidc', bindPoints: [{ interface: b, address: b }], apis: [{ binding: 'edge-oidc', options: { redirectURIs: ['http://localhost:*/cb'] } }] },
        ];
      },
    });
  });
  after(async () => ctl.close());

  it('suppresses auto-binding: OIDC is served only on its own port', async () => {
    const { apiVersions } = (await ctl.fetch('/edge/client/v1/version')).json().data;
    assert.deepEqual(apiVersions['edge-oidc'].v1.apiBaseUrls, [`https://127.0.0.1:${ctl.ports[1]}/oidc`]);
  });

  it('serves neither Edge API on the OIDC-only listener', async () => {
    const res = await ctl.fetch(`https://127.0.0.1:${ctl.ports[1]}/edge/client/v1/version`);
    assert.equal(res.status, 404);
  });
});

describe(`auto-binding disabled (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({
      modify(config) {
        config.edge.api.disableOidcAutoBinding = true;
      },
    });
  });
  after(async () => ctl.close());

  it('binds no OIDC and does not claim the OIDC_AUTH capability', async () => {
    const { apiVersions, capabilities } = (await ctl.fetch('/edge/client/v1/version')).json().data;
    assert.equal(apiVersions['edge-oidc'], undefined);
    assert.deepEqual(capabilities, []);
  });
});
