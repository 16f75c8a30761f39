/**
 * Login method `cert`: the client certificate presented in the TLS handshake, matched by fingerprint to a
 * certificate authenticator; its chain must lead to the controller's CAs.
 */
import { ApiError } from '../../../errors/api-error.js';
import type { PrimaryMethod, PrimaryMethodDeps } from './primary-method.js';
import { refuse } from './refusal.js';

/** Builds the `cert` method. @example const method = createCertMethod(deps); await method.authenticate(request); */
export function createCertMethod({ credentials, policyOf, usableIdentity }: PrimaryMethodDeps): PrimaryMethod {
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
      // The chain must lead to the controller's CAs; an expired certificate passes only where the policy allows it.
      const expiredButAllowed = clientCertificate.verificationError === 'CERT_HAS_EXPIRED' && policy.primary.cert.allowExpiredCerts;
      if (!clientCertificate.verified && !expiredButAllowed) throw refuse(`the certificate chain did not verify (${clientCertificate.verificationError ?? 'unknown reason'})`, identity.id);
      return { identity, authenticatorId: credential.authenticatorId };
    },
  };
}
