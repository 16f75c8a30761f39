/**
 * Which CAs this controller trusts right now, kept as two trusts that never mix (decision 0056):
 * - server trust: the controller's own CAs alone. The well-known bundle (`/.well-known/est/cacerts`) serves them, and
 *   clients store them as the CAs that may sign the controller's (and routers') server certificates.
 * - client trust (decision 0037): the own CAs plus the verified third-party CAs, read from the store and kept in
 *   memory while the change feed is fresh, dropped the moment any CA changes here or on another controller sharing
 *   the store. Certificate logins accept a chain that leads to an own CA or to a verified CA with `isAuthEnabled`; the
 *   TLS listeners name own and verified CAs to clients in the handshake (which CAs may log in, nothing more).
 * A CA row holding the key of an own CA is never a third-party CA: CA management refuses it (`isOwnCa`), and a row
 * stored before that refusal is left out of the verified set. A login verdict that reaches a third-party CA with an
 * `externalIdClaim` also tells what the claim reads from the leaf: with no certificate authenticator for the leaf,
 * that value names the identity (login by externalId, decision 0037).
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { CertificateAuthority } from '../../domain/ca.js';
import type { CaRepository } from '../../persistence/repositories/cas.js';
import { pkcs7CertsOnlyBase64 } from '../../pki/index.js';
import { readCertificates, verifyChain, type ChainVerdict } from '../../pki/chain.js';
import { systemClock } from '../../shared/clock.js';
import { externalIdOf } from './identity-from-certificate.js';
import type { ChangeFeed } from '../change-feed/index.js';
import { createFeedCache } from '../change-feed/feed-cache.js';

/** A verified CA with its certificate read once. */
export interface TrustedCa {
  ca: CertificateAuthority;
  certificate: X509Certificate;
}

/** What the `externalIdClaim` of the third-party CA a chain reached reads from the leaf. */
export interface ClaimedExternalId {
  caId: string;
  caName: string;
  /** Undefined when the leaf has no value where the claim looks. */
  externalId: string | undefined;
}

/**
 * A chain's verdict; `caId` names the third-party CA it reached (sessions record it: decision 0057), `claimed` is set
 * when that CA (trusted or not yet judged valid) has an externalIdClaim.
 */
export type LoginVerdict = ChainVerdict<X509Certificate> & { caId?: string; claimed?: ClaimedExternalId };

export interface CaTrust {
  /** Every verified CA (from memory while the feed is fresh). */
  verified(): Promise<TrustedCa[]>;
  /**
   * Whether a presented chain (leaf first, then intermediates, PEM or DER) leads to one of the controller's own CAs
   * or to a verified CA that allows certificate logins, checked now (not when the connection's handshake was made).
   * The verdict's code is CERT_HAS_EXPIRED for an expired certificate on a trusted path.
   */
  loginVerdict(chain: ReadonlyArray<string | Buffer>): Promise<LoginVerdict>;
  /**
   * The certs-only PKCS#7 (base64) of the controller's own CAs only: what a client may trust for the controller's
   * server certificate. Third-party CAs are never in it (decision 0056).
   */
  serverTrustPkcs7(): string;
  /** Whether `certificate` holds the key of one of the controller's own CAs (its CA bundle, signing chain, server chains' issuers). */
  isOwnCa(certificate: X509Certificate): boolean;
  /**
   * Calls `apply` with the PEM of every CA the listeners name to clients (own, then verified) now and after every CA
   * change, one call at a time; a failed read goes to `onError` and the last set stays. Returns the way to stop.
   */
  watch(apply: (caPems: string[]) => void, onError: (error: unknown) => void): () => void;
}

/** What `claim` reads from `leaf`; undefined also when the leaf's names cannot be read. */
function claimedValue(leaf: X509Certificate, claim: NonNullable<CertificateAuthority['externalIdClaim']>): string | undefined {
  try {
    return externalIdOf(leaf, claim);
  } catch {
    return undefined;
  }
}

/** SHA-256 of a certificate's SubjectPublicKeyInfo: the same key under another name or validity is the same CA. */
function keyDigest(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}

/**
 * `ownCaPems`: the controller's own CAs (trusted for logins, served as the server trust). `ownIssuerPems`: further
 * certificates of the controller's own PKI that only count as "own" (the issuers in its listeners' server chains).
 *
 * @example const trust = createCaTrust({ cas, feed, ownCaPems, ownIssuerPems }); await trust.loginVerdict(chainPems);
 */
export function createCaTrust(deps: { cas: Pick<CaRepository, 'listVerified'>; feed: ChangeFeed; ownCaPems: readonly string[]; ownIssuerPems?: readonly string[] }): CaTrust {
  const { cas, ownCaPems } = deps;
  const cache = createFeedCache<TrustedCa[]>({ feed: deps.feed, entity: 'ca', clearOn: ['ca'], capacity: 1 });
  const ownCertificates = ownCaPems.map((pem) => new X509Certificate(pem));
  const ownKeys = new Set([...ownCertificates, ...(deps.ownIssuerPems ?? []).map((pem) => new X509Certificate(pem))].map(keyDigest));
  const isOwnCa = (certificate: X509Certificate) => ownKeys.has(keyDigest(certificate));
  const serverTrust = pkcs7CertsOnlyBase64([...ownCaPems]);

  async function verified(): Promise<TrustedCa[]> {
    const found = await cache.get('verified', async () => {
      const rows = await cas.listVerified();
      return rows.map((ca) => ({ ca, certificate: new X509Certificate(ca.certPem) })).filter((trusted) => !isOwnCa(trusted.certificate));
    });
    return found ?? [];
  }

  const listenerCaPems = async () => [...ownCaPems, ...(await verified()).map((trusted) => trusted.ca.certPem)];

  return {
    verified,
    async loginVerdict(chain) {
      const certificates = readCertificates(chain);
      if (!certificates) return { ok: false, code: 'UNREADABLE', reason: 'a presented certificate could not be read' };
      const enabled = (await verified()).filter((trusted) => trusted.ca.isAuthEnabled);
      // Validity against real time, as the TLS handshake judged it before this verdict replaced OpenSSL's: moving the
      // controller's clock (tests) never moved TLS.
      const verdict = verifyChain(certificates, [...ownCertificates, ...enabled.map((trusted) => trusted.certificate)], (certificate) => certificate, systemClock.now());
      // The anchor is one of the objects passed in, so identity finds its CA; an own CA reached first has no claim.
      const ca = verdict.anchor && enabled.find((trusted) => trusted.certificate === verdict.anchor)?.ca;
      if (!ca) return verdict;
      if (!ca.externalIdClaim) return { ...verdict, caId: ca.id };
      return { ...verdict, caId: ca.id, claimed: { caId: ca.id, caName: ca.name, externalId: claimedValue(certificates[0] as X509Certificate, ca.externalIdClaim) } };
    },
    serverTrustPkcs7: () => serverTrust,
    isOwnCa,
    watch(apply, onError) {
      let queue = Promise.resolve();
      const refresh = () => {
        queue = queue.then(async () => apply(await listenerCaPems())).catch(onError);
      };
      const stop = deps.feed.subscribe((event) => {
        if (event.kind === 'reset' || event.changes.some((change) => change.entityType === 'ca' || change.entityType === '*')) refresh();
      });
      refresh();
      return stop;
    },
  };
}
