/**
 * The well-known config types (issue 14; docs/decisions/0026-configs-and-services.md): the types tunnelers and SDKs
 * ask for by name at login (`configTypes`) and read from a service's `config` map. Names and ids are wire identifiers
 * the public clients send (a router's tunneler asks for `g7cIWbcGg`, `NH5p4FpGR`, …), so both are the reference's,
 * unbranded. The schemas are written here from the fields the clients read; they are draft-07 JSON Schemas whose root
 * is an object, like any type an administrator creates. The schemas live in this file, not imported: a released
 * migration must seed the same rows forever.
 */
import type { Kysely, Migration } from 'kysely';

const port = { type: 'integer', minimum: 0, maximum: 65535 };
const portRange = {
  type: 'object',
  properties: { low: port, high: port },
  required: ['low', 'high'],
  additionalProperties: false,
};
const protocol = { type: 'string', enum: ['tcp', 'udp'] };
/** A host name, an IP address, a CIDR block or a `*.domain` wildcard. */
const address = { type: 'string', minLength: 1, maxLength: 255 };
const duration = { type: 'string', pattern: '^[0-9]+(ms|s|m|h)$' };

/** How an intercepting client reaches the service: the address it captures and what it dials with. */
const interceptV1 = {
  type: 'object',
  properties: {
    protocols: { type: 'array', items: protocol, minItems: 1, uniqueItems: true },
    addresses: { type: 'array', items: address, minItems: 1, uniqueItems: true },
    portRanges: { type: 'array', items: portRange, minItems: 1 },
    dialOptions: {
      type: 'object',
      properties: {
        identity: { type: 'string', description: 'the terminator identity to dial (addressable terminators)' },
        connectTimeoutSeconds: { type: 'integer', minimum: 0, maximum: 2147483647 },
      },
      additionalProperties: false,
    },
    sourceIp: { type: 'string', description: 'the source address the hosting side presents, e.g. $tunneler_id.name or an IP' },
  },
  required: ['protocols', 'addresses', 'portRanges'],
  additionalProperties: false,
};

/** Health checks a hosting client runs before it answers for the service. */
const portCheck = {
  type: 'object',
  properties: { address, interval: duration, timeout: duration },
  required: ['address', 'interval', 'timeout'],
};
const httpCheck = {
  type: 'object',
  properties: { url: { type: 'string', minLength: 1 }, method: { type: 'string' }, body: { type: 'string' }, expectStatus: { type: 'integer' }, interval: duration, timeout: duration },
  required: ['url', 'interval', 'timeout'],
};

/** One hosting definition: where the hosting client forwards the service, each part fixed or taken from the dialer. */
const hostDefinition = {
  type: 'object',
  properties: {
    protocol,
    forwardProtocol: { type: 'boolean' },
    allowedProtocols: { type: 'array', items: protocol, minItems: 1, uniqueItems: true },
    address,
    forwardAddress: { type: 'boolean' },
    allowedAddresses: { type: 'array', items: address, minItems: 1, uniqueItems: true },
    allowedSourceAddresses: { type: 'array', items: address, uniqueItems: true },
    port,
    forwardPort: { type: 'boolean' },
    allowedPortRanges: { type: 'array', items: portRange, minItems: 1 },
    listenOptions: {
      type: 'object',
      properties: {
        bindUsingEdgeIdentity: { type: 'boolean' },
        connectTimeoutSeconds: { type: 'integer', minimum: 0 },
        cost: { type: 'integer', minimum: 0, maximum: 65535 },
        identity: { type: 'string' },
        maxConnections: { type: 'integer', minimum: 1 },
        precedence: { type: 'string', enum: ['default', 'required', 'failed'] },
      },
      additionalProperties: false,
    },
    portChecks: { type: 'array', items: portCheck },
    httpChecks: { type: 'array', items: httpCheck },
  },
  additionalProperties: false,
  // Each part is either fixed here or forwarded from the dialer, and a forwarded part says what it may be.
  allOf: [
    { if: { properties: { forwardProtocol: { const: true } }, required: ['forwardProtocol'] }, then: { required: ['allowedProtocols'] }, else: { required: ['protocol'] } },
    { if: { properties: { forwardAddress: { const: true } }, required: ['forwardAddress'] }, then: { required: ['allowedAddresses'] }, else: { required: ['address'] } },
    { if: { properties: { forwardPort: { const: true } }, required: ['forwardPort'] }, then: { required: ['allowedPortRanges'] }, else: { required: ['port'] } },
  ],
};

/** Several hosting definitions, one terminator each (e.g. a primary and a failover). */
const hostV2 = {
  type: 'object',
  properties: { terminators: { type: 'array', items: hostDefinition, minItems: 1 } },
  required: ['terminators'],
  additionalProperties: false,
};

/** The first generation's intercept and host configs: one host name and port each. */
const tunnelerClientV1 = {
  type: 'object',
  properties: { hostname: address, port },
  required: ['hostname', 'port'],
  additionalProperties: false,
};
const tunnelerServerV1 = {
  type: 'object',
  properties: { protocol, hostname: address, port },
  required: ['protocol', 'hostname', 'port'],
  additionalProperties: false,
};

/** id, name, schema: the ids are the reference's, which clients send as they are. */
export const WELL_KNOWN_CONFIG_TYPES: ReadonlyArray<{ id: string; name: string; schema: object }> = [
  { id: 'g7cIWbcGg', name: 'intercept.v1', schema: interceptV1 },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: hostDefinition },
  { id: 'host.v2', name: 'host.v2', schema: hostV2 },
  { id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1', name: 'ziti-tunneler-client.v1', schema: tunnelerClientV1 },
  { id: 'cea49285-6c07-42cf-9f52-09a9b115c783', name: 'ziti-tunneler-server.v1', schema: tunnelerServerV1 },
];

export const wellKnownConfigTypes: Migration = {
  async up(db: Kysely<any>) {
    const now = new Date().toISOString();
    await db
      .insertInto('config_types')
      .values(WELL_KNOWN_CONFIG_TYPES.map(({ id, name, schema }) => ({ id, name, schema: JSON.stringify(schema), tags: '{}', created_at: now, updated_at: now })))
      .execute();
  },
};
