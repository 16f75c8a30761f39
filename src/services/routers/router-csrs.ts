/**
 * The two CSRs an edge router sends to enroll or extend (`{certCsr, serverCertCsr}`, reference facts §9), checked:
 * each a CSR the controller certifies (csr.ts: key type and size, signature), the client CSR's common name the
 * router's id (as the reference requires), and the server CSR's alternative names ones a router may hold.
 *
 * What a router may hold (decisions 0038, 0056): DNS names and IP addresses only, at most MAX_SERVER_NAMES, no
 * wildcard, and, unless the operator allows local names (`edge.enrollment.edgeRouter.allowLocalNames`), neither the
 * controller's own host names nor loopback names. The controller's CA signs both the controller's and the routers'
 * server certificates and clients trust that CA for both, so a router certificate naming the controller's host, or
 * the loopback address a client on the controller's machine reaches it by, could pose as the controller; a URI name
 * could pose as an identity (`spiffe://svc/identity/...`), a wildcard as any host. Every refusal is 400 naming the
 * field; nothing is issued.
 */
import { BlockList, isIP } from 'node:net';
import { ApiError, isApiError } from '../../errors/api-error.js';
import { requestedAltNames } from '../../pki/csr-names.js';
import { subjectAltNamesForHosts, type x509 } from '../../pki/index.js';
import { parseCsr } from '../enrollment/csr.js';

/** The most alternative names a router's server certificate carries. */
export const MAX_SERVER_NAMES = 16;

export type RouterCsrField = 'certCsr' | 'serverCertCsr';

export interface RouterCsrInput {
  certCsr?: string;
  serverCertCsr?: string;
}

/** Which names the controller keeps from routers. */
export interface ServerNamePolicy {
  /** The controller's own host names, as `hostKey` gives them. */
  controllerHosts: ReadonlySet<string>;
  /** True lets routers name loopback addresses and the controller's host names (a router on the controller's machine). */
  allowLocalNames: boolean;
}

export interface CheckedRouterCsrs {
  client: x509.Pkcs10CertificateRequest;
  server: x509.Pkcs10CertificateRequest;
  serverNames: { dns: string[]; ip: string[] };
}

/** Host names compared as a TLS client compares them: DNS names without case or a final dot, addresses canonical. */
export function hostKey(host: string): string {
  if (isIP(host) !== 0) return subjectAltNamesForHosts([host]).ip[0] ?? host;
  return host.toLowerCase().replace(/\.$/, '');
}

/** 127.0.0.0/8 and ::1; BlockList also matches the IPv4-mapped IPv6 spellings of the IPv4 range. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** localhost (and its subdomains, RFC 6761 §6.3) and the loopback addresses, however spelled. */
export function isLoopback(host: string): boolean {
  const key = hostKey(host);
  const family = isIP(key);
  if (family !== 0) return LOOPBACK.check(key, family === 4 ? 'ipv4' : 'ipv6');
  return key === 'localhost' || key.endsWith('.localhost');
}

function invalid(field: RouterCsrField, reason: string, code: 'MISSING_OR_INVALID_CSR' | 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID' = 'MISSING_OR_INVALID_CSR'): ApiError {
  return new ApiError(code, { message: `${field}: ${reason}`, cause: { field, reason } });
}

/** csr.ts's checks, with the refusal naming the router's field instead of `csr`. */
async function parsedAs(field: RouterCsrField, pem: string | undefined): Promise<x509.Pkcs10CertificateRequest> {
  if (typeof pem !== 'string' || pem.trim() === '') throw invalid(field, 'is required: a PEM CERTIFICATE REQUEST');
  try {
    return await parseCsr(pem);
  } catch (error) {
    if (isApiError(error) && error.code === 'MISSING_OR_INVALID_CSR') throw invalid(field, String(error.cause?.reason ?? error.message));
    throw error;
  }
}

function serverNames(csr: x509.Pkcs10CertificateRequest, policy: ServerNamePolicy): { dns: string[]; ip: string[] } {
  const names = requestedAltNames(csr);
  const refused = [...names.uri.map((n) => `URI ${n}`), ...names.email.map((n) => `email ${n}`), ...names.other];
  if (refused.length > 0) throw invalid('serverCertCsr', `asks for ${refused.join(', ')}; a router's server certificate holds DNS names and IP addresses only`);
  const all = [...names.dns, ...names.ip];
  if (all.length === 0) throw invalid('serverCertCsr', 'asks for no DNS name or IP address (subjectAltName); a server certificate needs at least one');
  if (all.length > MAX_SERVER_NAMES) throw invalid('serverCertCsr', `asks for ${all.length} names; at most ${MAX_SERVER_NAMES} are issued`);
  const wildcard = names.dns.find((name) => name.includes('*'));
  if (wildcard !== undefined) throw invalid('serverCertCsr', `asks for the wildcard name ${wildcard}; routers get exact names only`);
  let sorted: { dns: string[]; ip: string[] };
  try {
    sorted = subjectAltNamesForHosts(all);
  } catch (error) {
    throw invalid('serverCertCsr', (error as Error).message);
  }
  if (policy.allowLocalNames) return sorted;
  const allowIt = 'unless edge.enrollment.edgeRouter.allowLocalNames is true in the controller config';
  const taken = all.find((name) => policy.controllerHosts.has(hostKey(name)));
  if (taken !== undefined) throw invalid('serverCertCsr', `asks for ${taken}, a name of the controller; a router cannot hold it ${allowIt}`);
  const loopback = all.find(isLoopback);
  if (loopback !== undefined) throw invalid('serverCertCsr', `asks for the loopback name ${loopback}; a router cannot hold it ${allowIt}`);
  return sorted;
}

/**
 * Checks both CSRs of router `routerId`; `names` says which server names the controller keeps from routers.
 *
 * @example const { client, server, serverNames } = await checkRouterCsrs(body, router.id, { controllerHosts, allowLocalNames: false });
 */
export async function checkRouterCsrs(input: RouterCsrInput, routerId: string, names: ServerNamePolicy): Promise<CheckedRouterCsrs> {
  const client = await parsedAs('certCsr', input.certCsr);
  const server = await parsedAs('serverCertCsr', input.serverCertCsr);
  const commonName = client.subjectName.getField('CN')[0];
  if (commonName !== routerId) {
    throw invalid('certCsr', `the common name is '${commonName ?? ''}'; it must be the edge router id ${routerId}`, 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID');
  }
  return { client, server, serverNames: serverNames(server, names) };
}
