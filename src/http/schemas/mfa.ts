/**
 * Schemas of the MFA operations: the MFA validation request (`{code}`), the enrollment detail and the recovery
 * codes (reference: detailMfa, detailMfaRecoveryCodes).
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';

/** Spec: MFA validation request. The code's shape (6 digits, or a recovery code) is checked by the service. */
export const MfaCodeBody = Type.Object({ code: Type.String({ maxLength: 64, description: 'a TOTP code or, where accepted, a recovery code' }) }, { additionalProperties: false });

/** Optional on the reads and deletes that take the code in a header. */
export const MfaCodeHeader = Type.Object({
  'mfa-validation-code': Type.Optional(Type.String({ maxLength: 64, description: 'a TOTP code (or a recovery code where accepted); empty while enrollment is unverified' })),
});

const entity = {
  id: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
};

export const MfaDetail = Type.Object({
  ...entity,
  isVerified: Type.Boolean(),
  provisioningUrl: Type.Optional(Type.String({ description: 'otpauth:// URI; only while the enrollment is unverified' })),
  recoveryCodes: Type.Optional(Type.Array(Type.String(), { description: 'only while the enrollment is unverified' })),
});

export const MfaRecoveryCodes = Type.Object({ ...entity, recoveryCodes: Type.Array(Type.String()) });
