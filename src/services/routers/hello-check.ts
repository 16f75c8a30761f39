/**
 * Bounds on what a router's hello may carry before it is stored (decision 0064). A router is authenticated by its
 * certificate, but its hello is still input: a compromised or broken router must not grow the presence row, nor
 * every router list that shows it, without end. The first field over its bound is named in the error.
 */
import type { RouterHello } from './presence.js';

const MAX_HOSTNAME = 255;
const MAX_VERSION_FIELD = 128;
const MAX_LISTENERS = 32;
const MAX_ADVERTISE = 300;
const MAX_CAPABILITIES = 64;
const MAX_CAPABILITY = 64;
const MAX_LINK_GROUPS = 32;

/** A hello with a field out of its bounds; the message names the field and the bound. */
export class InvalidHelloError extends Error {
  constructor(readonly field: string, reason: string) {
    super(`the router's hello is refused: ${field} ${reason}`);
  }
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;

/** Throws InvalidHelloError naming the first field of `hello` that is not text within its bound. */
export function checkHello(hello: RouterHello): void {
  const text = (field: string, value: unknown, max: number) => {
    if (!isText(value, max)) throw new InvalidHelloError(field, `must be text of at most ${max} characters`);
  };
  text('hostname', hello.hostname, MAX_HOSTNAME);
  text('version', hello.version, MAX_VERSION_FIELD);
  for (const key of ['version', 'revision', 'buildDate', 'os', 'arch'] as const) text(`versionInfo.${key}`, hello.versionInfo?.[key], MAX_VERSION_FIELD);
  if (!Array.isArray(hello.listeners) || hello.listeners.length > MAX_LISTENERS) throw new InvalidHelloError('listeners', `must be a list of at most ${MAX_LISTENERS}`);
  hello.listeners.forEach((listener, i) => {
    text(`listeners[${i}].binding`, listener?.binding, MAX_CAPABILITY);
    text(`listeners[${i}].advertise`, listener?.advertise, MAX_ADVERTISE);
    const groups: unknown = listener?.groups;
    if (groups === undefined) return;
    if (!Array.isArray(groups) || groups.length === 0 || groups.length > MAX_LINK_GROUPS) throw new InvalidHelloError(`listeners[${i}].groups`, `must be a list of 1 to ${MAX_LINK_GROUPS}`);
    groups.forEach((group, g) => text(`listeners[${i}].groups[${g}]`, group, MAX_CAPABILITY));
  });
  if (!Array.isArray(hello.capabilities) || hello.capabilities.length > MAX_CAPABILITIES) {
    throw new InvalidHelloError('capabilities', `must be a list of at most ${MAX_CAPABILITIES}`);
  }
  hello.capabilities.forEach((capability, i) => text(`capabilities[${i}]`, capability, MAX_CAPABILITY));
}
