/**
 * The controller's `ctrl` section: the control-plane listener routers connect to, and the address they are told
 * to use (decision 0065). Errors carry line and column as every controller config error does.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_FILE, HEAD, controllerYaml, loadText, printed } from '../helpers/config-fixture.js';

const F = CONFIG_FILE;
/** HEAD then `ctrl:` on line 8, its keys on lines 9 and 10; the edge API address is ctrl.example.com:1280. */
const withCtrl = (lines: string) => controllerYaml({ head: `${HEAD}ctrl:\n${lines}` });

describe('ctrl.listener', () => {
  it('listens where the file says and advertises the edge API host with its port when it binds all interfaces', async () => {
    const result = await loadText(withCtrl('  listener: tls:0.0.0.0:6262\n'));

    assert.deepEqual(printed(result), []);
    assert.deepEqual(result.config?.ctrl, {
      listener: { host: '0.0.0.0', port: 6262, text: 'tls:0.0.0.0:6262' },
      advertise: { host: 'ctrl.example.com', port: 6262, text: 'ctrl.example.com:6262' },
    });
  });

  it('advertises the listener host:port itself when it names one host, IPv6 in brackets', async () => {
    const v4 = await loadText(withCtrl('  listener: tls:10.0.0.5:6262\n'));
    const v6 = await loadText(withCtrl('  listener: "tls:[fd00::5]:6262"\n'));

    assert.equal(v4.config?.ctrl?.advertise.text, '10.0.0.5:6262');
    assert.deepEqual(v6.config?.ctrl?.listener, { host: 'fd00::5', port: 6262, text: 'tls:[fd00::5]:6262' });
    assert.deepEqual(v6.config?.ctrl?.advertise, { host: 'fd00::5', port: 6262, text: '[fd00::5]:6262' });
  });

  it('takes an explicit advertise as written', async () => {
    const result = await loadText(withCtrl('  listener: tls:0.0.0.0:6262\n  advertise: routers.example.com:443\n'));

    assert.deepEqual(result.config?.ctrl?.advertise, { host: 'routers.example.com', port: 443, text: 'routers.example.com:443' });
  });

  it('leaves ctrl out of the config when the file has none', async () => {
    const result = await loadText(controllerYaml());

    assert.ok(result.config);
    assert.equal(result.config.ctrl, undefined);
  });

  it('refuses a listener without the tls protocol, another protocol, or a port out of range, at its line and column', async () => {
    const cases: [string, string][] = [
      ['0.0.0.0:6262', "'0.0.0.0:6262': not a listener address; expected tls:<host>:<port>, e.g. tls:0.0.0.0:6262"],
      ['tcp:0.0.0.0:6262', "'tcp:0.0.0.0:6262': protocol 'tcp' is not served; expected tls:<host>:<port>, e.g. tls:0.0.0.0:6262"],
      ['tls:0.0.0.0:70000', "'tls:0.0.0.0:70000': '0.0.0.0:70000': port '70000' must be a number from 1 to 65535; expected tls:<host>:<port>, e.g. tls:0.0.0.0:6262"],
      ['tls:6262', "'tls:6262': '6262' is not a host:port; expected tls:<host>:<port>, e.g. tls:0.0.0.0:6262"],
    ];
    for (const [listener, message] of cases) {
      const result = await loadText(withCtrl(`  listener: ${listener}\n`));

      assert.deepEqual(printed(result), [`${F}:9:13: ctrl.listener: ${message}`], listener);
      assert.equal(result.config, undefined);
    }
  });

  it('refuses the port of a web bind point on the same interface, naming both', async () => {
    // The web listener binds 0.0.0.0:1280 (line 18): every host shares that port.
    for (const listener of ['tls:0.0.0.0:1280', 'tls:127.0.0.1:1280']) {
      const result = await loadText(withCtrl(`  listener: ${listener}\n`));

      assert.deepEqual(printed(result), [
        `${F}:9:13: ctrl.listener: '${listener}' uses port 1280 of web[0].bindPoints[0].interface ('0.0.0.0:1280'); give the control plane a port of its own, e.g. 6262`,
      ]);
    }
  });

  it('lets the control plane share a port number with a web bind point on another interface', async () => {
    const text = withCtrl('  listener: tls:10.0.0.5:1280\n').replace('interface: 0.0.0.0:1280', 'interface: 10.0.0.6:1280');
    const result = await loadText(text);

    assert.deepEqual(printed(result), []);
    assert.equal(result.config?.ctrl?.listener.text, 'tls:10.0.0.5:1280');
  });

  it('refuses a bad advertise, and a wildcard listener with no host to advertise', async () => {
    const bad = await loadText(withCtrl('  listener: tls:0.0.0.0:6262\n  advertise: tls:routers.example.com:6262\n'));
    assert.deepEqual(printed(bad), [
      `${F}:10:14: ctrl.advertise: 'tls:routers.example.com:6262' is not a host:port; drop the 'tls:' protocol prefix here`,
    ]);

    const web = 'web:\n  - name: ops\n    bindPoints:\n      - interface: 127.0.0.1:9090\n        address: 127.0.0.1:9090\n    apis:\n      - binding: metrics\n';
    const noEdge = await loadText(controllerYaml({ head: `${HEAD}ctrl:\n  listener: "tls:[::]:6262"\n`, edge: '', web }));
    assert.deepEqual(printed(noEdge), [
      `${F}:9:13: ctrl.listener: 'tls:[::]:6262' listens on all interfaces: set ctrl.advertise to the host:port routers should dial`,
    ]);
  });

  it('suggests listener for a misspelt key and requires it', async () => {
    const result = await loadText(withCtrl('  listen: tls:0.0.0.0:6262\n'));

    assert.deepEqual(printed(result), [`${F}:8:1: ctrl.listener: missing required key`, `${F}:9:3: ctrl.listen: unknown key 'listen' (did you mean 'listener'?)`]);
  });
});
