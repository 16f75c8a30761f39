/**
 * What the third-party CA methods (ottca, ca) share: reading the client certificate chain presented in the TLS
 * handshake (leaf first, then intermediates), checking it leads to an acceptable CA, and the refusals, each a 4xx
 * naming the problem (reference facts: CERT_FAILED_VALIDATION, CERT_IN_USE).
 */
import type { X509Certificate } from 'node:crypto';
import { ApiError } from '../../../errors/api-error.js';
import { readCertificates, verifyChain } from '../../../pki/chain.js';
import { certificateFingerprint } from '../../../pki/index.js';
import type { TrustedCa } from '../../cas/ca-trust.js';
import type { EnrollCas } from './enroll-method.js';

/** The chain the client presented in the TLS handshake: leaf first, then intermediates (PEM or DER each). */
export interface PresentedChainInput {
  clientChain: ReadonlyArray<string | Buffer> | undefined;
}

function failed(reason: string): ApiError {
  return new ApiError('CERT_FAILED_VALIDATION', { cause: { field: 'clientCertificate', reason } });
}

/** The presented chain read, or 400 CERT_FAILED_VALIDATION when there is none or it cannot be read. */
export function presentedChain({ clientChain }: PresentedChainInput): X509Certificate[] {
  if (!clientChain || clientChain.length === 0) throw failed('no client certificate was presented in the TLS handshake; connect with the certificate (and its intermediates) the CA issued');
  const chain = readCertificates(clientChain);
  if (!chain) throw failed('a presented certificate could not be read');
  return chain;
}

/**
 * The CA among `candidates` the chain leads to, checked at `now` (an expired certificate does not enroll); `none`
 * is the refusal when no candidate issued it. Then 409 CERT_IN_USE when an authenticator already holds the leaf.
 */
export async function acceptedChain(
  chain: X509Certificate[],
  candidates: readonly TrustedCa[],
  now: Date,
  cas: Pick<EnrollCas, 'certInUse'>,
  none: (reason: string) => ApiError,
): Promise<{ trusted: TrustedCa; leafPem: string; fingerprint: string; leaf: X509Certificate }> {
  const verdict = verifyChain(chain, candidates, (trusted) => trusted.certificate, now);
  if (!verdict.ok) throw verdict.code === 'UNTRUSTED' ? none(verdict.reason) : failed(verdict.reason);
  const leaf = chain[0] as X509Certificate;
  const leafPem = `${leaf.toString().trimEnd()}\n`;
  const fingerprint = certificateFingerprint(leafPem);
  if (await cas.certInUse(fingerprint)) {
    throw new ApiError('CERT_IN_USE', { cause: { field: 'clientCertificate', reason: 'an authenticator already holds this certificate', value: fingerprint } });
  }
  return { trusted: verdict.anchor, leafPem, fingerprint, leaf };
}
