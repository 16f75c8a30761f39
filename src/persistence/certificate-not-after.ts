/** The end of a stored certificate, as the store keeps it (ISO text), for the expiry board's indexed column. */
import { X509Certificate } from 'node:crypto';

/** The ISO time a PEM certificate ends, or null when it cannot be read (a stored value is never refused here). */
export function certificateNotAfter(pem: string | null | undefined): string | null {
  if (!pem) return null;
  try {
    return new Date(new X509Certificate(pem).validTo).toISOString();
  } catch {
    return null;
  }
}
