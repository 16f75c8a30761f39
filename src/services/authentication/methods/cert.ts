/**
 * Login method `cert`: the client certificate presented in the TLS handshake, matched by fingerprint to a
 * certificate authenticator; its chain must lead to the controller's CAs, or (spec: certificate login) to a verified
 * third-party CA that allows logins, through the intermediates the client sent after the leaf (decision 0037). The
 * chain is judged against the CAs trusted now: the handshake's verdict may be older than a CA's change.
 */
import { ApiError } from '../../../errors/api-error.js';
import type { PresentedClientCertificate } from '../authentication.js';
import type { PrimaryMethod, PrimaryMethodDeps } from './primary-method.js';
import { refuse } from './refusal.js';

/**
 * Whether the presented chain leads to a CA trusted now (the controller's own, or a verified third-party CA allowing
 * logins), or the reason it does not; the TLS layer's verdict only where no chain was read.
 */
async function chainVerdict(certificate: PresentedClientCertificate, trust: PrimaryMethodDeps['clientCaTrust']): Promise<{ verified: boolean; error: string | undefined }> {
  if (!trust || !certificate.chain || certificate.chain.length === 0) return { verified: certificate.verified, error: certificate.verificationError };
  const verdict = await trust.loginVerdict(certificate.chain);
  if (verdict.ok) return { verified: true, error: undefined };
  // No trusted path: OpenSSL's reason names what it could not find, where it gave one.
  const untrusted = verdict.code === 'UNTRUSTED' || verdict.code === 'UNREADABLE';
  return { verified: false, error: untrusted ? (certificate.verificationError ?? verdict.reason) : verdict.code };
}

/** Builds the `cert` method. @example const method = createCertMethod(deps); await method.authenticate(request); */
export function createCertMethod({ credentials, policyOf, usableIdentity, clientCaTrust }: PrimaryMethodDeps): PrimaryMethod {
  return {
    name: 'cert',
    async authenticate({ clientCertificate }) {
      if (!clientCertificate) {
        throw new ApiError('INVALID_AUTH', { message: 'method cert needs a client certificate presented in the TLS handshake' });
      }
      const credential = await credentials.findCert(clientCertificate.fingerprint);
      if (!credential) throw refuse('no certificate authenticator has this certificate');
      const identity = await usableIdentity(credential.identityId);
      if (typeof identity === 'string') throw refuse(identity);
      const policy = await policyOf(identity);
      if (!policy.primary.cert.allowed) throw refuse('the auth policy does not allow certificate logins', identity.id);
      // The chain must lead to a trusted CA; an expired certificate passes only where the policy allows it.
      const { verified, error } = await chainVerdict(clientCertificate, clientCaTrust);
      const expiredButAllowed = error === 'CERT_HAS_EXPIRED' && policy.primary.cert.allowExpiredCerts;
      if (!verified && !expiredButAllowed) throw refuse(`the certificate chain did not verify (${error ?? 'unknown reason'})`, identity.id);
      return { identity, authenticatorId: credential.authenticatorId };
    },
  };
}
