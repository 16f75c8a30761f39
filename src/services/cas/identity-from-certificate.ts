/**
 * What a CA auto-enrollment reads from the presented certificate (reference enrollment_mod_ca): the identity's name,
 * by the CA's `identityNameFormat` and its placeholders, and its `externalId`, by the CA's `externalIdClaim`.
 */
import type { X509Certificate } from 'node:crypto';
import type { CertificateAuthority, ExternalIdClaim } from '../../domain/ca.js';
import { x509 } from '../../pki/index.js';

/** The subject's common name ('' when it has none). */
export function commonNameOf(leaf: X509Certificate): string {
  return new x509.X509Certificate(leaf.raw).subjectName.getField('CN')[0] ?? '';
}

/** The name `ca.identityNameFormat` gives: each placeholder replaced by its value. */
export function identityName(ca: CertificateAuthority, values: { commonName: string; requestedName: string; identityId: string }): string {
  const symbols: Record<string, string> = {
    '[caName]': ca.name,
    '[caId]': ca.id,
    '[commonName]': values.commonName,
    '[requestedName]': values.requestedName,
    '[identityId]': values.identityId,
  };
  return ca.identityNameFormat.replace(/\[[A-Za-z]+\]/g, (symbol) => symbols[symbol] ?? symbol);
}

/** The values of the claim's location in the certificate, in their order there. */
function candidates(leaf: X509Certificate, location: ExternalIdClaim['location']): string[] {
  if (location === 'COMMON_NAME') return [commonNameOf(leaf)].filter((value) => value !== '');
  const extension = new x509.X509Certificate(leaf.raw).getExtension(x509.SubjectAlternativeNameExtension);
  const type = location === 'SAN_URI' ? 'url' : 'email';
  return (extension?.names.items ?? []).filter((name) => name.type === type).map((name) => name.value);
}

function matches(value: string, claim: ExternalIdClaim): boolean {
  switch (claim.matcher) {
    case 'ALL':
      return true;
    case 'PREFIX':
      return value.startsWith(claim.matcherCriteria);
    case 'SUFFIX':
      return value.endsWith(claim.matcherCriteria);
    case 'SCHEME':
      return value.toLowerCase().startsWith(`${claim.matcherCriteria.toLowerCase()}:`);
  }
}

/**
 * The externalId `claim` reads from `leaf`: the values at its location that its matcher keeps, split by its parser
 * (SPLIT: on the criteria, every part in order), the `index`th of them; undefined when there is none.
 */
export function externalIdOf(leaf: X509Certificate, claim: ExternalIdClaim): string | undefined {
  const kept = candidates(leaf, claim.location).filter((value) => matches(value, claim));
  const parts = claim.parser === 'SPLIT' ? kept.flatMap((value) => value.split(claim.parserCriteria)) : kept;
  const value = parts[claim.index];
  return value === undefined || value === '' ? undefined : value;
}
