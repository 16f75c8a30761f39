/**
 * The client tunneler's pure parts (issue 43, helper client): intercept.v1 configs checked field by field, where each
 * intercept is listened on (loopback literals as is, every other address at the bind address), the port offset, the
 * per-service port cap, listeners two intercepts would share, and the AppData a dial carries.
 *
 * @store-independent: pure functions, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appDataFor, sourceAddress } from '../../src/tunneler/app-data.js';
import { addressKind, parseInterceptV1 } from '../../src/tunneler/intercept-config.js';
import { planIntercepts, type DialableService } from '../../src/tunneler/intercept-plan.js';

const config = (over: Record<string, unknown> = {}) => ({ protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: 8080, high: 8080 }], ...over });
const service = (name: string, over: Record<string, unknown> = {}): DialableService => ({ id: `id-${name}`, name, config: config(over) });
const options = { bindHost: '127.0.0.1', portOffset: 0, maxPorts: 64 };

describe('intercept.v1 configs as the client tunneler reads them', () => {
  it('classifies addresses: loopback literals, other IPs, CIDRs, host names and wildcards', () => {
    assert.deepEqual(['127.0.0.1', '127.9.8.7', '::1', '0:0:0:0:0:0:0:1', '10.1.2.3', 'fe80::1', '10.0.0.0/8', 'fd00::/64', 'db.internal', '*.example.com'].map(addressKind), [
      'loopback',
      'loopback',
      'loopback',
      'loopback',
      'ip',
      'ip',
      'cidr',
      'cidr',
      'hostname',
      'wildcard',
    ]);
  });

  it('refuses a malformed config with a sentence naming the field', () => {
    const problems = [
      [config({ protocols: [] }), "field 'protocols' must be a non-empty list"],
      [config({ protocols: ['sctp'] }), `field 'protocols[0]' is "sctp"; expected 'tcp' or 'udp'`],
      [config({ addresses: ['127.0.0.1', 'not a host'] }), "field 'addresses[1]': 'not a host' is not an IP address, a CIDR block, a host name or a *.domain wildcard"],
      [config({ addresses: ['10.0.0.0/33'] }), "field 'addresses[0]': '10.0.0.0/33' is not a valid CIDR block (an IP address, '/', a prefix length up to 32)"],
      [config({ addresses: [7] }), "field 'addresses[0]' must be a string"],
      [config({ portRanges: [{ low: 90, high: 80 }] }), "field 'portRanges[0]': low 90 is above high 80"],
      [config({ portRanges: [{ low: 1, high: 70000 }] }), "field 'portRanges[0].high' must be a port number from 0 to 65535"],
      [config({ portRanges: 'all' }), "field 'portRanges' must be a non-empty list"],
      [config({ dialOptions: { connectTimeoutSeconds: -1 } }), "field 'dialOptions.connectTimeoutSeconds' must be a whole number of seconds"],
      [config({ sourceIp: '' }), "field 'sourceIp' must be a non-empty string"],
      [['not', 'an', 'object'], 'the config is not a JSON object'],
    ] as const;
    for (const [bad, problem] of problems) assert.deepEqual(parseInterceptV1(bad), { ok: false, problem });
  });

  it('reads a good config with its dial timeout and source address template', () => {
    const parsed = parseInterceptV1(config({ protocols: ['tcp', 'udp', 'tcp'], dialOptions: { connectTimeoutSeconds: 3 }, sourceIp: '$src_ip:$src_port' }));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.protocols, ['tcp', 'udp']);
    assert.equal(parsed.value.dialTimeoutMs, 3000);
    assert.equal(parsed.value.sourceIp, '$src_ip:$src_port');
  });
});

describe('where the client tunneler listens', () => {
  it('listens on loopback literals as they are and on the bind address for anything else, saying it substituted', () => {
    const plan = planIntercepts([service('web', { addresses: ['127.0.0.5', 'web.internal', '10.0.0.9', '*.corp', '10.0.0.0/24'], portRanges: [{ low: 80, high: 80 }] })], { ...options, portOffset: 10000 });
    const at = plan.intercepts.map((i) => [i.address.text, `${i.listenHost}:${i.listenPort}`, i.substituted, i.blocked ?? 'own listener']);
    assert.deepEqual(at, [
      ['127.0.0.5', '127.0.0.5:10080', false, 'own listener'],
      ['web.internal', '127.0.0.1:10080', true, 'own listener'],
      ['10.0.0.9', '127.0.0.1:10080', true, 'shares the listener of web.internal:80'],
      ['*.corp', '127.0.0.1:10080', true, 'shares the listener of web.internal:80'],
      ['10.0.0.0/24', '127.0.0.1:10080', true, 'shares the listener of web.internal:80'],
    ]);
  });

  it('gives a local port to the first service that wants it and tells the second which service holds it', () => {
    const plan = planIntercepts([service('b-second', { addresses: ['b.internal'] }), service('a-first', { addresses: ['a.internal'] })], options);
    assert.equal(plan.intercepts[0]?.blocked, undefined);
    assert.equal(plan.intercepts[1]?.blocked, "cannot listen: used by service 'a-first'");
  });

  it('opens at most maxPorts ports per service and says which were left out', () => {
    const plan = planIntercepts([service('wide', { portRanges: [{ low: 1000, high: 1999 }] })], { ...options, maxPorts: 4 });
    assert.deepEqual(
      plan.intercepts.map((i) => i.port),
      [1000, 1001, 1002, 1003],
    );
    assert.deepEqual(plan.notes, ["service 'wide': ports 1004-1999 are not listened on: a service opens at most 4 ports"]);
  });

  it('refuses ports the offset moves out of range, and port 0', () => {
    const plan = planIntercepts([service('edge', { portRanges: [{ low: 0, high: 0 }, { low: 65000, high: 65000 }] })], { ...options, portOffset: 1000 });
    assert.deepEqual(
      plan.intercepts.map((i) => i.blocked),
      ['cannot listen: port 0', 'cannot listen: offset port 66000 is invalid'],
    );
  });

  it('skips a service whose config is malformed with a note naming it and the field, and keeps the others', () => {
    const plan = planIntercepts([service('broken', { portRanges: [{ low: 9, high: 1 }] }), service('fine')], options);
    assert.deepEqual(
      plan.intercepts.map((i) => i.serviceName),
      ['fine'],
    );
    assert.deepEqual(plan.notes, ["service 'broken' is not intercepted: its intercept.v1 config is malformed: field 'portRanges[0]': low 9 is above high 1"]);
  });
});

describe('the AppData a client tunneler dials with', () => {
  it('carries the intercepted destination (not the local stand-in), the source and a filled source address, all as strings', () => {
    const [hostnamed] = planIntercepts([service('web', { addresses: ['web.internal'], portRanges: [{ low: 443, high: 443 }], sourceIp: '$tunneler_id.name:$src_port' })], { ...options, portOffset: 10000 }).intercepts;
    assert.deepEqual(JSON.parse(appDataFor(hostnamed!, { address: '127.0.0.1', port: 50000 }, 'laptop').toString()), {
      dst_protocol: 'tcp',
      dst_hostname: 'web.internal',
      dst_port: '443',
      src_protocol: 'tcp',
      src_ip: '127.0.0.1',
      src_port: '50000',
      source_addr: 'laptop:50000',
    });
    const [literal] = planIntercepts([service('dns', { protocols: ['udp'], addresses: ['127.0.0.53'], portRanges: [{ low: 53, high: 53 }] })], options).intercepts;
    assert.deepEqual(JSON.parse(appDataFor(literal!, { address: '127.0.0.1', port: 40000 }, 'laptop').toString()), {
      dst_protocol: 'udp',
      dst_ip: '127.0.0.53',
      dst_port: '53',
      src_protocol: 'udp',
      src_ip: '127.0.0.1',
      src_port: '40000',
    });
  });

  it('leaves out a source address whose template names a variable it cannot fill', () => {
    assert.equal(sourceAddress('$tunneler_id.tag[site]', { 'tunneler_id.name': 'x' }), undefined);
    assert.equal(sourceAddress('$src_ip:$dst_port', { src_ip: '127.0.0.1', dst_port: '22' }), '127.0.0.1:22');
  });
});
