/**
 * What the router makes of its file's tunnel listener (issue 43, decision 0071): host mode by default, proxy mode's
 * services and the interface it listens on (loopback unless the listener's address names one), tproxy refused at
 * start with a sentence naming the key.
 * @store-independent: pure function, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RouterSetupError } from '../../src/router/errors.js';
import type { RouterFile } from '../../src/router-config/schema.js';
import { tunnelSettings } from '../../src/router/tunnel/tunnel-settings.js';

const file = (listeners: unknown[]) => ({ listeners }) as unknown as RouterFile;

describe('router tunnel: settings from the router file', () => {
  it('has no tunnel without a tunnel listener', () => {
    assert.equal(tunnelSettings(file([{ binding: 'edge', address: 'tls:0.0.0.0:3022', advertise: 'er1:3022' }])), undefined);
  });

  it('hosts by default', () => {
    assert.deepEqual(tunnelSettings(file([{ binding: 'tunnel' }])), { mode: 'host', proxy: { host: '127.0.0.1', services: [] } });
  });

  it('listens for proxy services on loopback unless the listener names an address', () => {
    const services = ['web:8080', 'my:svc:9000'];

    assert.deepEqual(tunnelSettings(file([{ binding: 'tunnel', options: { mode: 'proxy', services } }])), {
      mode: 'proxy',
      proxy: { host: '127.0.0.1', services: [{ name: 'web', port: 8080 }, { name: 'my:svc', port: 9000 }] },
    });
    assert.equal(tunnelSettings(file([{ binding: 'tunnel', address: 'tcp:0.0.0.0:0', options: { mode: 'proxy', services } }]))?.proxy.host, '0.0.0.0');
    assert.equal(tunnelSettings(file([{ binding: 'tunnel', bind: 'tcp:[::1]:0', options: { mode: 'proxy', services } }]))?.proxy.host, '::1');
  });

  it('refuses tproxy mode at start with a sentence naming the key and what to use instead', () => {
    assert.throws(
      () => tunnelSettings(file([{ binding: 'edge' }, { binding: 'tunnel', options: { mode: 'tproxy', resolver: 'udp://127.0.0.1:53' } }])),
      (error: Error) =>
        error instanceof RouterSetupError &&
        error.message ===
          'listeners[1].options.mode: tproxy is not supported by this router (it needs root and iptables rules); use mode host to host services or mode proxy with services: ["<service>:<port>"] to reach them',
    );
  });
});
