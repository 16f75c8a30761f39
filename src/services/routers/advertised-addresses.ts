/**
 * From the edge listeners a router advertises in its hello (`tls:er1.example:3022`, as its config file writes them)
 * to the `supportedProtocols` clients read: protocol -> `<proto>://<host>:<port>` (issue 41, must-have 2). The public
 * C SDK reads only the `tls` key and only the URL form; `tls:host:port` fails in it. An IPv6 host is bracketed.
 */

const PROTOCOL = /^[a-z][a-z0-9+.-]*$/;
const PORT = /^[0-9]{1,5}$/;

/** `proto:host:port` (host may be `[v6]` or a bare IPv6 address) as a URL, or undefined when it is not that form. */
export function advertisedUrl(advertise: string): { protocol: string; url: string } | undefined {
  const colon = advertise.indexOf(':');
  if (colon <= 0) return undefined;
  const protocol = advertise.slice(0, colon).toLowerCase();
  const rest = advertise.slice(colon + 1);
  const lastColon = rest.lastIndexOf(':');
  if (!PROTOCOL.test(protocol) || lastColon <= 0) return undefined;
  const port = rest.slice(lastColon + 1);
  let host = rest.slice(0, lastColon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (!PORT.test(port) || Number(port) < 1 || Number(port) > 65_535 || host === '' || /[\s/[\]@]/.test(host)) return undefined;
  return { protocol, url: `${protocol}://${host.includes(':') ? `[${host}]` : host}:${Number(port)}` };
}

/**
 * The supportedProtocols of a router's advertised listeners; the first listener of a protocol wins, and one not in the
 * `proto:host:port` form is left out (the control plane logs what it refuses; this map only says where to dial).
 *
 * @example supportedProtocols([{ binding: 'edge', advertise: 'tls:er1.example:3022' }]) // {tls: 'tls://er1.example:3022'}
 */
export function supportedProtocols(listeners: readonly { advertise: string }[]): Record<string, string> {
  const addresses: Record<string, string> = {};
  for (const listener of listeners) {
    const parsed = advertisedUrl(listener.advertise);
    if (parsed && !Object.hasOwn(addresses, parsed.protocol)) addresses[parsed.protocol] = parsed.url;
  }
  return addresses;
}
