/**
 * Login method `cert`: the client certificate presented in the TLS handshake, matched by fingerprint to a
 * certificate authenticator; its chain must lead to the controller's CAs, or (spec: certificate login) to a verified
 * third-party CA that allows logins, through the intermediates the client sent after the leaf (decision 0037). The
 * chain is judged against the CAs trusted now: the handshake's verdict may be older than a CA's change.
 *
 * A leaf no authenticator holds may still log in when its chain reaches a third-party CA with an `externalIdClaim`:
 * the claim's value names the identity whose `externalId` it is (reference authenticator_mod_cert). The same checks
 * follow either way: the identity may log in now, its auth policy allows certificate logins, and the chain verified
 * (an expired certificate only where the policy allows expired ones).
 *
 * A CA's claim stays inside what the CA may speak for (decision 0057): an identity enrolled through that CA (it holds
 * a certificate authenticator the CA's enrollment made), or one whose auth policy lists the CA in
 * `primary.cert.allowedCas`; an administrator only by that list, as with external JWT signers. The session records
 * the third-party CA the chain reached, so withdrawing that CA ends it.
 */
import type { AuthPolicy } from '../../../domain/auth-policy.js';
import type { Identity } from '../../../domain/identity.js';
import { ApiError } from '../../../errors/api-error.js';
import type { CredentialRepository } from '../../../persistence/repositories/credentials.js';
import type { PresentedClientCertificate } from '../authentication.js';
import type { ClientChainVerdict, PrimaryMethod, PrimaryMethodDeps } from './primary-method.js';
import { refuse } from './refusal.js';

interface ChainJudgement {
  verified: boolean;
  /** A code (CERT_HAS_EXPIRED, …) or OpenSSL's reason; undefined when verified. */
  error: string | undefined;
  caId?: string;
  claimed?: ClientChainVerdict['claimed'];
}

/**
 * Whether the presented chain leads to a CA trusted now (the controller's own, or a verified third-party CA allowing
 * logins), or the reason it does not; the TLS layer's verdict only where no chain was read.
 */
async function chainVerdict(certificate: PresentedClientCertificate, trust: PrimaryMethodDeps['clientCaTrust']): Promise<ChainJudgement> {
  if (!trust || !certificate.chain || certificate.chain.length === 0) return { verified: certificate.verified, error: certificate.verificationError };
  const verdict = await trust.loginVerdict(certificate.chain);
  const claimed = { ...(verdict.caId ? { caId: verdict.caId } : {}), ...(verdict.claimed ? { claimed: verdict.claimed } : {}) };
  if (verdict.ok) return { verified: true, error: undefined, ...claimed };
  // No trusted path: OpenSSL's reason names what it could not find, where it gave one.
  const untrusted = verdict.code === 'UNTRUSTED' || verdict.code === 'UNREADABLE';
  const error = untrusted ? (certificate.verificationError ?? verdict.reason) : verdict.code === 'CERT_HAS_EXPIRED' ? verdict.code : `${verdict.code}: ${verdict.reason}`;
  return { verified: false, error, ...claimed };
}

/** Who a certificate login proves, and the authenticator id its session records. */
interface Holder {
  identityId: string;
  authenticatorId: string;
  /** For a login by a CA's externalIdClaim: the CA, and whether the identity was enrolled through it. */
  claimedBy?: { caId: string; ca: string; enrolledThroughCa: boolean };
}

/**
 * The identity the externalIdClaim of the CA the chain reached names. Its session records no real authenticator (the
 * reference has none either): `caExternalId:<caId>`, as an external JWT login records `extJwtId:<signerId>`, so the
 * session says which CA let it in, and nothing that reads an authenticator by that id finds one.
 */
async function claimHolder(judgement: ChainJudgement, credentials: Pick<CredentialRepository, 'findExternalIdHolder'>): Promise<Holder> {
  const { claimed } = judgement;
  if (!claimed) throw refuse('no certificate authenticator has this certificate');
  const ca = `the CA '${claimed.caName}' (${claimed.caId})`;
  if (claimed.externalId === undefined) throw refuse(`no certificate authenticator has this certificate, and the externalIdClaim of ${ca} finds no value in it`);
  const holder = await credentials.findExternalIdHolder(claimed.externalId, claimed.caId);
  if (!holder) throw refuse(`no certificate authenticator has this certificate, and no identity has the externalId '${claimed.externalId}' that ${ca} claims from it`);
  const claimedBy = { caId: claimed.caId, ca, enrolledThroughCa: holder.enrolledThroughCa };
  return { identityId: holder.identityId, authenticatorId: `caExternalId:${claimed.caId}`, claimedBy };
}

/**
 * Why the CA of a claim may not speak for `identity`, or undefined when it may: the identity's policy lists the CA, or
 * (never for an administrator) the identity was enrolled through it.
 */
function outsideCa(claimedBy: NonNullable<Holder['claimedBy']>, identity: Identity, policy: AuthPolicy): string | undefined {
  if ((policy.primary.cert.allowedCas ?? []).includes(claimedBy.caId)) return undefined;
  if (identity.isAdmin) return `the identity is an administrator and its auth policy does not list ${claimedBy.ca} in primary.cert.allowedCas`;
  if (claimedBy.enrolledThroughCa) return undefined;
  return `the identity was not enrolled through ${claimedBy.ca} and its auth policy does not list that CA in primary.cert.allowedCas`;
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
      // Without an authenticator, the chain is judged first: only the CA it reaches can name the identity.
      const early = credential ? undefined : await chainVerdict(clientCertificate, clientCaTrust);
      const holder: Holder = credential ?? (await claimHolder(early as ChainJudgement, credentials));
      // The identity is read as every request reads it (kept current by the change feed): a disabled one is refused.
      const identity = await usableIdentity(holder.identityId);
      if (typeof identity === 'string') throw refuse(identity);
      const policy = await policyOf(identity);
      if (!policy.primary.cert.allowed) throw refuse('the auth policy does not allow certificate logins', identity.id);
      const outside = holder.claimedBy && outsideCa(holder.claimedBy, identity, policy);
      if (outside) throw refuse(outside, identity.id);
      // The chain must lead to a trusted CA; an expired certificate passes only where the policy allows it.
      const { verified, error, caId } = early ?? (await chainVerdict(clientCertificate, clientCaTrust));
      const expiredButAllowed = error === 'CERT_HAS_EXPIRED' && policy.primary.cert.allowExpiredCerts;
      if (!verified && !expiredButAllowed) throw refuse(`the certificate chain did not verify (${error ?? 'unknown reason'})`, identity.id);
      return { identity, authenticatorId: holder.authenticatorId, ...(caId ? { caId } : {}) };
    },
  };
}
