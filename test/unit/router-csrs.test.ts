/**
 * The checks of an edge router's two CSRs (services/routers/router-csrs.ts) with CSRs made by `openssl`: the
 * controller's own host names and loopback names are refused however they are spelled unless the operator allows
 * local names, other names pass as the CSR gives them.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '../../src/errors/api-error.js';
import { checkRouterCsrs, hostKey } from '../../src/services/routers/router-csrs.js';
import { opensslCsr, opensslKey } from '../helpers/openssl.js';

const ROUTER = 'router-id-1';
const controllerHosts = new Set(['ctrl.example.test', '192.0.2.10', '2001:db8::1'].map(hostKey));
const strict = { controllerHosts, allowLocalNames: false };

async function refusal(names: string[], policy = strict) {
  const key = opensslKey();
  try {
    await checkRouterCsrs({ certCsr: opensslCsr(key, ROUTER), serverCertCsr: opensslCsr(key, ROUTER, names) }, ROUTER, policy);
    return undefined;
  } catch (error) {
    if (!isApiError(error)) throw error;
    return error;
  }
}

describe('router CSR checks', () => {
  it("refuses the controller's own names, whatever their case or IPv6 spelling", async () => {
    for (const name of ['DNS:ctrl.example.test', 'DNS:CTRL.Example.Test', 'IP:192.0.2.10', 'IP:2001:0db8:0:0:0:0:0:1']) {
      const error = await refusal(['DNS:router.example.test', name]);
      assert.equal(error?.code, 'MISSING_OR_INVALID_CSR', name);
      assert.equal(error?.cause?.field, 'serverCertCsr');
      assert.match(String(error?.cause?.reason), /a name of the controller/, name);
      assert.match(String(error?.cause?.reason), /edge\.enrollment\.edgeRouter\.allowLocalNames/, name);
    }
  });

  it('refuses loopback names, however spelled, unless local names are allowed', async () => {
    const loopback = ['DNS:localhost', 'DNS:LocalHost.', 'DNS:router.localhost', 'IP:127.0.0.1', 'IP:127.8.9.10', 'IP:::1', 'IP:0:0:0:0:0:0:0:1', 'IP:::ffff:127.0.0.1'];
    for (const name of loopback) {
      const error = await refusal(['DNS:router.example.test', name]);
      assert.equal(error?.code, 'MISSING_OR_INVALID_CSR', name);
      assert.equal(error?.cause?.field, 'serverCertCsr', name);
      assert.match(String(error?.cause?.reason), /loopback name .*allowLocalNames is true/, name);
    }
    for (const name of [...loopback, 'DNS:ctrl.example.test', 'IP:192.0.2.10']) {
      assert.equal(await refusal(['DNS:router.example.test', name], { controllerHosts, allowLocalNames: true }), undefined, `${name} allowed`);
    }
  });

  it('passes DNS names and addresses that are not the controller\'s, and returns them sorted by kind', async () => {
    const key = opensslKey();
    const checked = await checkRouterCsrs(
      { certCsr: opensslCsr(key, ROUTER), serverCertCsr: opensslCsr(key, ROUTER, ['DNS:edge.example.test', 'IP:198.51.100.7', 'DNS:edge-2.example.test']) },
      ROUTER,
      strict,
    );
    assert.deepEqual(checked.serverNames, { dns: ['edge.example.test', 'edge-2.example.test'], ip: ['198.51.100.7'] });
  });

  it('refuses more than 16 names and email names', async () => {
    const many = Array.from({ length: 17 }, (_, i) => `DNS:host-${i}.example.test`);
    assert.match(String((await refusal(many))?.cause?.reason), /at most 16/);
    assert.match(String((await refusal(['DNS:a.example.test', 'email:ops@example.test']))?.cause?.reason), /email/);
  });
});
