/**
 * The client certificate chain a TLS client presented, as sent: the leaf first, then the intermediates it sent after
 * it (spec: certificate login). Node's getPeerCertificate(true) links the peer's certificates by issuer and, where
 * the listener's own CAs complete the path, adds those: whatever it adds is a CA the controller holds anyway, so the
 * chain is only ever checked against trust anchors by the caller (pki/chain.ts), never trusted for being here.
 *
 * The chain is read once, when the handshake completes (`rememberClientChain` on the server's secureConnection): a
 * call of getPeerX509Certificate() on the socket leaves getPeerCertificate(true) with the leaf alone afterwards
 * (Node 20), and other code reads the leaf that way.
 */
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';

/** The longest chain read (a loop guard: the walk ends at a self-issued certificate). */
const MAX_CHAIN = 10;

const chains = new WeakMap<TLSSocket, Buffer[]>();

function readChain(socket: TLSSocket): Buffer[] {
  let cert = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  const chain: Buffer[] = [];
  while (cert && cert.raw && chain.length < MAX_CHAIN) {
    const raw = cert.raw;
    if (chain.some((der) => der.equals(raw))) break;
    chain.push(raw);
    const next: DetailedPeerCertificate | undefined = cert.issuerCertificate;
    if (!next || next === cert) break;
    cert = next;
  }
  return chain;
}

/** Reads and keeps the chain of a socket whose handshake just completed; for the server's `secureConnection`. */
export function rememberClientChain(socket: TLSSocket): void {
  chains.set(socket, readChain(socket));
}

/** The DER of each presented certificate, leaf first; empty when the connection is not TLS or sent none. */
export function presentedClientChain(request: Pick<FastifyRequest, 'raw'>): Buffer[] {
  const socket = request.raw.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return [];
  const kept = chains.get(socket);
  if (kept) return kept;
  const chain = readChain(socket);
  chains.set(socket, chain);
  return chain;
}
