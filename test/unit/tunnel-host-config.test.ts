/**
 * The router tunnel's reading of host.v1 / host.v2 configs (issue 43, decision 0071): targets with their terminator
 * settings, the destination of one circuit from the dialer's AppData when the config forwards it, refusals that say
 * what was not allowed, and bad configs skipped with the field named.
 * @store-independent: pure functions, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONNECT_TIMEOUT_MS, parseHostConfig, resolveDestination, type HostTarget } from '../../src/router/tunnel/host-config.js';

function hostV1(config: Record<string, unknown>) {
  return parseHostConfig({ id: 'svc1', name: 'web', encryptionRequired: true, configType: 'host.v1', config });
}

function onlyTarget(config: Record<string, unknown>): HostTarget {
  const { targets, problems } = hostV1(config);
  assert.deepEqual(problems, []);
  assert.equal(targets.length, 1);
  return targets[0]!;
}

const appData = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('router tunnel: host configs', () => {
  it('reads a fixed host.v1 target with its listen options into one terminator definition', () => {
    const target = onlyTarget({ protocol: 'tcp', address: '127.0.0.1', port: 8080, listenOptions: { cost: 7, precedence: 'required', connectTimeoutSeconds: 2, maxConnections: 3 } });

    assert.equal(target.address, 'tcp:127.0.0.1:8080');
    assert.equal(target.cost, 7);
    assert.equal(target.precedence, 'required');
    assert.equal(target.connectTimeoutMs, 2_000);
    assert.equal(target.maxConnections, 3);
    assert.deepEqual(resolveDestination(target, undefined), { protocol: 'tcp', host: '127.0.0.1', port: 8080 });
  });

  it('defaults to precedence default, no cost and a 5 s connect timeout', () => {
    const target = onlyTarget({ protocol: 'udp', address: 'db.internal', port: 53 });

    assert.equal(target.precedence, 'default');
    assert.equal(target.cost, undefined);
    assert.equal(target.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
    assert.equal(target.address, 'udp:db.internal:53');
  });

  it('makes one target per host.v2 terminator and skips only the bad one, naming its field', () => {
    const { targets, problems } = parseHostConfig({
      id: 'svc2',
      name: 'db',
      encryptionRequired: false,
      configType: 'host.v2',
      config: { terminators: [{ protocol: 'tcp', address: 'a.internal', port: 5432 }, { protocol: 'tcp', address: 'b.internal', port: 70000 }, { protocol: 'tcp', address: 'c.internal', port: 5433, listenOptions: { precedence: 'failed' } }] },
    });

    assert.deepEqual(targets.map((t) => [t.index, t.address, t.precedence]), [[0, 'tcp:a.internal:5432', 'default'], [2, 'tcp:c.internal:5433', 'failed']]);
    assert.deepEqual(problems, [{ field: 'terminators[1].port', problem: '70000 is not a port (1-65535)' }]);
  });

  it('forwards protocol, address and port from the AppData the public tunnelers send', () => {
    const target = onlyTarget({
      forwardProtocol: true,
      allowedProtocols: ['tcp', 'udp'],
      forwardAddress: true,
      allowedAddresses: ['10.0.0.0/8', '*.corp.example', 'exact.example', 'fd00::/8'],
      forwardPort: true,
      allowedPortRanges: [{ low: 80, high: 80 }, { low: 8000, high: 8999 }],
    });

    assert.equal(target.address, '*:*:*');
    assert.deepEqual(resolveDestination(target, appData({ dst_protocol: 'udp', dst_ip: '10.1.2.3', dst_port: '8443' })), { protocol: 'udp', host: '10.1.2.3', port: 8443 });
    assert.deepEqual(resolveDestination(target, appData({ dst_protocol: 'tcp', dst_hostname: 'App.Corp.Example', dst_ip: '192.0.2.1', dst_port: 80 })), { protocol: 'tcp', host: 'App.Corp.Example', port: 80 });
    assert.deepEqual(resolveDestination(target, appData({ dst_protocol: 'tcp', dst_hostname: 'corp.example', dst_port: '80' })), { protocol: 'tcp', host: 'corp.example', port: 80 });
    assert.deepEqual(resolveDestination(target, appData({ dst_protocol: 'tcp', dst_hostname: 'exact.example', dst_port: '80' })), { protocol: 'tcp', host: 'exact.example', port: 80 });
    assert.deepEqual(resolveDestination(target, appData({ dst_protocol: 'tcp', dst_ip: 'fd00::5', dst_port: '80' })), { protocol: 'tcp', host: 'fd00::5', port: 80 });
  });

  it('refuses forwarded destinations the allowed lists do not allow, with a sentence naming the service and the value', () => {
    const target = onlyTarget({ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['10.0.0.0/8', '*.corp.example'], forwardPort: true, allowedPortRanges: [{ low: 80, high: 90 }] });
    const refused = (data: unknown) => {
      const answer = resolveDestination(target, data === undefined ? undefined : Buffer.isBuffer(data) ? data : appData(data));
      assert.ok('refused' in answer, `expected a refusal for ${JSON.stringify(data)}`);
      return answer.refused;
    };

    assert.equal(refused({ dst_ip: '192.0.2.1', dst_port: '80' }), "service 'web': the dialer asked for address '192.0.2.1', which allowedAddresses of its host config does not allow");
    assert.equal(refused({ dst_hostname: 'evil.example', dst_port: '80' }), "service 'web': the dialer asked for address 'evil.example', which allowedAddresses of its host config does not allow");
    assert.equal(refused({ dst_hostname: 'corp.example.evil', dst_port: '80' }), "service 'web': the dialer asked for address 'corp.example.evil', which allowedAddresses of its host config does not allow");
    assert.equal(refused({ dst_ip: '10.0.0.1', dst_port: '91' }), "service 'web': the dialer asked for port 91, which allowedPortRanges of its host config does not allow");
    assert.equal(refused({ dst_ip: '10.0.0.1', dst_port: '8o' }), "service 'web': the dialer asked for port '8o', which is not a port number");
    assert.equal(refused({ dst_ip: '10.0.0.1' }), "service 'web': the dialer sent no dst_port, which its host config forwards");
    assert.equal(refused({ dst_port: '80' }), "service 'web': the dialer sent neither dst_hostname nor dst_ip, which its host config forwards");
    assert.equal(refused(undefined), "service 'web': the dialer sent no AppData, but its host config forwards the destination from it");
    assert.equal(refused(Buffer.from('not json')), "service 'web': the dialer's AppData is not a JSON object");
    assert.equal(refused(Buffer.from('[1,2]')), "service 'web': the dialer's AppData is not a JSON object");
    assert.match(refused(Buffer.alloc(9_000, 0x20)), /AppData is 9000 bytes, more than the 8192 read/);
  });

  it('refuses a forwarded protocol outside allowedProtocols and names the host.v2 terminator', () => {
    const { targets } = parseHostConfig({
      id: 'svc3',
      name: 'dns',
      encryptionRequired: false,
      configType: 'host.v2',
      config: { terminators: [{ protocol: 'udp', address: '1.1.1.1', port: 53 }, { forwardProtocol: true, allowedProtocols: ['udp'], address: '1.1.1.1', port: 53 }] },
    });
    const answer = resolveDestination(targets[1]!, appData({ dst_protocol: 'tcp' }));

    assert.deepEqual(answer, { refused: "service 'dns': the dialer asked for protocol 'tcp', which allowedProtocols of its host config's terminators[1] does not allow" });
  });

  it('skips configs that cannot be hosted and names the field of each', () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ address: 'x', port: 1 }, 'protocol', /is required: tcp or udp/],
      [{ protocol: 'sctp', address: 'x', port: 1 }, 'protocol', /'sctp' is not tcp or udp/],
      [{ protocol: 'tcp', port: 1 }, 'address', /is required/],
      [{ protocol: 'tcp', address: 'bad host!', port: 1 }, 'address', /not a host name or IP address/],
      [{ protocol: 'tcp', address: 'x' }, 'port', /is required/],
      [{ protocol: 'tcp', address: 'x', port: 0 }, 'port', /0 is not a port/],
      [{ protocol: 'tcp', address: 'x', port: '80' }, 'port', /"80" is not a port/],
      [{ protocol: 'tcp', address: 'x', port: 1.5 }, 'port', /is not a port/],
      [{ forwardProtocol: true, address: 'x', port: 1 }, 'allowedProtocols', /non-empty list when forwardProtocol is true/],
      [{ forwardProtocol: 'yes', protocol: 'tcp', address: 'x', port: 1 }, 'forwardProtocol', /must be true or false/],
      [{ protocol: 'tcp', forwardAddress: true, allowedAddresses: [], port: 1 }, 'allowedAddresses', /non-empty list when forwardAddress is true/],
      [{ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['10.0.0.0/33'], port: 1 }, 'allowedAddresses[0]', /not a CIDR/],
      [{ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['ok.example', '*.'], port: 1 }, 'allowedAddresses[1]', /not \*\.<domain>/],
      [{ protocol: 'tcp', forwardAddress: true, allowedAddresses: [42], port: 1 }, 'allowedAddresses[0]', /must be an IP address/],
      [{ protocol: 'tcp', address: 'x', forwardPort: true }, 'allowedPortRanges', /non-empty list when forwardPort is true/],
      [{ protocol: 'tcp', address: 'x', forwardPort: true, allowedPortRanges: [{ low: 90, high: 80 }] }, 'allowedPortRanges[0]', /low 90 is above high 80/],
      [{ protocol: 'tcp', address: 'x', forwardPort: true, allowedPortRanges: [{ low: 1 }] }, 'allowedPortRanges[0].high', /is required/],
      [{ protocol: 'tcp', address: 'x', forwardPort: true, allowedPortRanges: ['80-90'] }, 'allowedPortRanges[0]', /must be \{low, high\}/],
      [{ protocol: 'tcp', address: 'x', port: 1, listenOptions: 'fast' }, 'listenOptions', /must be an object/],
      [{ protocol: 'tcp', address: 'x', port: 1, listenOptions: { cost: -1 } }, 'listenOptions.cost', /not a whole number from 0 to 65535/],
      [{ protocol: 'tcp', address: 'x', port: 1, listenOptions: { precedence: 'first' } }, 'listenOptions.precedence', /'first' is not one of default, required, failed/],
      [{ protocol: 'tcp', address: 'x', port: 1, listenOptions: { connectTimeoutSeconds: 'soon' } }, 'listenOptions.connectTimeoutSeconds', /not a whole number/],
      [{ protocol: 'tcp', address: 'x', port: 1, listenOptions: { maxConnections: 0 } }, 'listenOptions.maxConnections', /not a whole number from 1/],
    ];
    for (const [config, field, problem] of cases) {
      const { targets, problems } = hostV1(config);
      assert.deepEqual(targets, [], `expected ${JSON.stringify(config)} to be skipped`);
      assert.equal(problems.length, 1);
      assert.equal(problems[0]!.field, field, JSON.stringify(config));
      assert.match(problems[0]!.problem, problem, JSON.stringify(config));
    }
  });

  it('refuses a host.v2 config without terminators and a definition that is not an object', () => {
    const empty = parseHostConfig({ id: 's', name: 'n', encryptionRequired: false, configType: 'host.v2', config: { terminators: [] } });
    const notObject = parseHostConfig({ id: 's', name: 'n', encryptionRequired: false, configType: 'host.v2', config: { terminators: ['tcp:x:1'] } });

    assert.deepEqual(empty, { targets: [], problems: [{ field: 'terminators', problem: 'must be a non-empty list of hosting definitions' }] });
    assert.deepEqual(notObject.problems, [{ field: 'terminators[0]', problem: 'must be an object' }]);
  });

  it('reads an IPv6 target and writes its terminator address with brackets', () => {
    const target = onlyTarget({ protocol: 'tcp', address: '::1', port: 22 });

    assert.equal(target.address, 'tcp:[::1]:22');
    assert.deepEqual(resolveDestination(target, undefined), { protocol: 'tcp', host: '::1', port: 22 });
  });
});
