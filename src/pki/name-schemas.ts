/**
 * The ASN.1 shapes of the two extensions the name constraint checks read (RFC 5280 sections 4.2.1.6 and 4.2.1.10),
 * taken from @peculiar/asn1-x509 with one change: an iPAddress is kept as its octets (hex), because the library's
 * GeneralName turns it into text that counts the mask's bits, so a mask that is not a prefix would read as another
 * range. And `readExactly`, which parses with the library and then insists the value re-encodes to the same bytes.
 */
import { AsnArray, AsnConvert, AsnOctetStringConverter, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes, type IAsnConverter } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree } from '@peculiar/asn1-x509';

/** An extension value that is not the DER its schema describes. */
export class UnreadableExtension extends Error {}

const octetsAsHex: IAsnConverter<string, Parameters<typeof AsnOctetStringConverter.fromASN>[0]> = {
  fromASN: (value) => Buffer.from(AsnOctetStringConverter.fromASN(value)).toString('hex'),
  toASN: (hex) => AsnOctetStringConverter.toASN(new Uint8Array(Buffer.from(hex, 'hex')).buffer),
};

/** The library's GeneralName, but `iPAddress` holds the OCTET STRING as hex: 4 or 16 octets, or 8 or 32 (address and mask). */
export class OctetIpGeneralName extends GeneralName {}
AsnType({ type: AsnTypeTypes.Choice })(OctetIpGeneralName);
AsnProp({ type: AsnPropTypes.OctetString, context: 7, implicit: true, converter: octetsAsHex })(OctetIpGeneralName.prototype, 'iPAddress');

/** SubjectAltName ::= GeneralNames (SEQUENCE SIZE (1..MAX) OF GeneralName). */
export class AltNames extends AsnArray<OctetIpGeneralName> {}
AsnType({ type: AsnTypeTypes.Sequence, itemType: OctetIpGeneralName })(AltNames);

/** GeneralSubtree ::= SEQUENCE { base GeneralName, minimum [0] DEFAULT 0, maximum [1] OPTIONAL }. */
export class Subtree extends GeneralSubtree {
  declare base: OctetIpGeneralName;
}
AsnProp({ type: OctetIpGeneralName })(Subtree.prototype, 'base');

export class Subtrees extends AsnArray<Subtree> {}
AsnType({ type: AsnTypeTypes.Sequence, itemType: Subtree })(Subtrees);

/** NameConstraints ::= SEQUENCE { permittedSubtrees [0] OPTIONAL, excludedSubtrees [1] OPTIONAL }. */
export class NameConstraintsSchema {
  permittedSubtrees?: Subtrees;
  excludedSubtrees?: Subtrees;
}
AsnProp({ type: Subtrees, context: 0, optional: true, implicit: true })(NameConstraintsSchema.prototype, 'permittedSubtrees');
AsnProp({ type: Subtrees, context: 1, optional: true, implicit: true })(NameConstraintsSchema.prototype, 'excludedSubtrees');

/**
 * `der` read as `schema`. The library reads leniently: it skips elements its schema has no place for (a second
 * excludedSubtrees, say) and bytes after the value, and a skipped exclusion would widen what a CA allows. So the value
 * read must encode back to exactly `der`: then every byte was understood. Throws UnreadableExtension otherwise.
 */
export function readExactly<T>(der: Buffer, schema: new () => T): T {
  let value: T;
  try {
    value = AsnConvert.parse(der, schema);
  } catch (error) {
    throw new UnreadableExtension(`not ${schema.name}: ${(error as Error).message}`);
  }
  let again: Buffer;
  try {
    again = Buffer.from(AsnConvert.serialize(value));
  } catch (error) {
    throw new UnreadableExtension(`not ${schema.name}: ${(error as Error).message}`);
  }
  if (!again.equals(der)) throw new UnreadableExtension(`not the DER of ${schema.name}`);
  return value;
}
