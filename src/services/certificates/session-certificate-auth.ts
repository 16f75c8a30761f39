/**
 * Where an ephemeral certificate is accepted by the controller (decision 0038): a request that carries no session
 * token and no Bearer token, over TLS with an ephemeral certificate of a live legacy session, is authenticated as
 * that session, as an SDK that keeps only the certificate would be at an edge router. Once the session ends the
 * certificate names no session and the request is refused like any request without credentials.
 */
import type { RequestAuthenticator } from '../authentication/request-auth.js';
import type { SessionCertificateService } from './session-certificates.js';

export function withSessionCertificates(inner: RequestAuthenticator, certificates: Pick<SessionCertificateService, 'sessionTokenHashOf'>): RequestAuthenticator {
  return {
    // A token always decides before a certificate does; a tokenless request's certificate is looked up in the store.
    authenticateFromMemory: (credentials) => inner.authenticateFromMemory(credentials),
    async authenticate(credentials) {
      const { sessionToken, bearerTokens, clientCertificate } = credentials;
      const tokenless = (sessionToken === undefined || sessionToken === '') && bearerTokens.length === 0;
      if (!tokenless || !clientCertificate) return inner.authenticate(credentials);
      const sessionTokenHash = await certificates.sessionTokenHashOf(clientCertificate);
      return inner.authenticate(sessionTokenHash === undefined ? credentials : { ...credentials, sessionTokenHash });
    },
  };
}
