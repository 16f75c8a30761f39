/**
 * One TLS client context per set of trust anchors and client certificate, shared by the test clients' connections
 * (https.ts, raw-https.ts). Node otherwise builds a context for every connection from the PEM texts it is given,
 * which cost over half a millisecond of CPU per request, thousands of times per file in the busiest ones. A shared
 * context changes nothing the server sees: each connection still makes its own full handshake (no session is resumed
 * unless the helper asks for one), with the same CA, certificate and key.
 */
import { createSecureContext, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/** The context trusting `ca` and, when given, presenting `cert` with `key`; built once per distinct set. */
export function clientContext(ca: string | string[], cert?: string, key?: string): SecureContext {
  const id = JSON.stringify([ca, cert ?? null, cert ? (key ?? null) : null]);
  let context = contexts.get(id);
  if (!context) {
    context = createSecureContext({ ca, ...(cert ? { cert, key } : {}) });
    contexts.set(id, context);
  }
  return context;
}
