/**
 * From a router's advertised edge listeners to the `supportedProtocols` clients dial (issue 41, must-have 2): the
 * exact `<proto>://<host>:<port>` form the public C SDK reads, IPv6 hosts bracketed, anything else left out.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advertisedUrl, supportedProtocols } from '../../src/services/routers/advertised-addresses.js';

const listeners = (...advertise: string[]) => advertise.map((address) => ({ binding: 'edge', advertise: address }));

describe('supportedProtocols from advertised listeners', () => {
  it('turns tls:host:port into exactly {"tls":"tls://host:port"}', () => {
    assert.deepEqual(supportedProtocols(listeners('tls:er1.example:3022')), { tls: 'tls://er1.example:3022' });
    assert.equal(JSON.stringify(supportedProtocols(listeners('tls:er1.example:3022'))), '{"tls":"tls://er1.example:3022"}');
  });

  it('keeps one address per protocol, the first advertised, beside other protocols', () => {
    assert.deepEqual(supportedProtocols(listeners('tls:a.example:3022', 'wss:a.example:3023', 'tls:b.example:4022')), {
      tls: 'tls://a.example:3022',
      wss: 'wss://a.example:3023',
    });
  });

  it('brackets an IPv6 host, whether it was advertised bracketed or bare', () => {
    assert.deepEqual(advertisedUrl('tls:[2001:db8::1]:3022'), { protocol: 'tls', url: 'tls://[2001:db8::1]:3022' });
    assert.deepEqual(advertisedUrl('tls:::1:3022'), { protocol: 'tls', url: 'tls://[::1]:3022' });
    assert.deepEqual(advertisedUrl('tls:127.0.0.1:3022'), { protocol: 'tls', url: 'tls://127.0.0.1:3022' });
  });

  it('leaves out what is not protocol:host:port: no protocol, no port, a port out of range, a URL, an empty host', () => {
    for (const bad of ['er1.example', 'tls:er1.example', 'tls:er1.example:0', 'tls:er1.example:65536', 'tls:er1.example:30x', 'tls://er1.example:3022', 'tls::3022', ':er1.example:3022', '1tls:er1.example:3022']) {
      assert.equal(advertisedUrl(bad), undefined, bad);
    }
    assert.deepEqual(supportedProtocols(listeners('tls:er1.example', 'constructor:er1.example:1')), { constructor: 'constructor://er1.example:1' });
    assert.deepEqual(supportedProtocols([]), {});
  });
});
