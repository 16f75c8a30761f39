/**
 * The MFA operations of the client API, under the current identity (spec: MFA group, MFA enrollment states;
 * reference facts §8): start an enrollment, read it, its QR code, verify it, remove it, view and regenerate
 * recovery codes. Starting is allowed to a partially authenticated session (its policy may require TOTP before it
 * has any); everything else needs a full session (spec rule 6).
 */
import { Type } from 'typebox';
import type { MfaStatus } from '../../services/mfa/mfa.js';
import { ApiErrorBody, EmptyEnvelope, Envelope } from '../schemas/common.js';
import { MfaCodeBody, MfaCodeHeader, MfaDetail, MfaRecoveryCodes } from '../schemas/mfa.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['MFA', 'Current Identity'];
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody };
const links = { self: { href: './current-identity/mfa' } };

function mfaView(status: MfaStatus) {
  return {
    id: status.id,
    isVerified: status.isVerified,
    ...(status.provisioningUrl === undefined ? {} : { provisioningUrl: status.provisioningUrl }),
    ...(status.recoveryCodes === undefined ? {} : { recoveryCodes: status.recoveryCodes }),
    createdAt: status.createdAt.toISOString(),
    updatedAt: status.updatedAt.toISOString(),
    tags: {},
    _links: links,
  };
}

export const mfaRoutes = [
  defineRoute({
    method: 'POST',
    url: '/current-identity/mfa',
    operationId: 'enrollMfa',
    summary: 'Starts TOTP enrollment; the answer holds the provisioning URL and recovery codes until it is verified',
    tags,
    access: 'partial',
    uses: ['mfa'],
    status: 201,
    schema: { response: { 201: Envelope(MfaDetail), 401: ApiErrorBody, 409: ApiErrorBody } },
    handler: async ({ domains, auth }) => envelope(mfaView(await domains.mfa.start(auth!.identity))),
  }),
  defineRoute({
    method: 'GET',
    url: '/current-identity/mfa',
    operationId: 'detailMfa',
    summary: 'Returns the TOTP enrollment: with the provisioning URL and recovery codes while it is unverified',
    tags,
    access: 'session',
    uses: ['mfa'],
    schema: { response: { 200: Envelope(MfaDetail), 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth }) => envelope(mfaView(await domains.mfa.status(auth!.identity))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/current-identity/mfa',
    operationId: 'deleteMfa',
    summary: 'Removes TOTP; a verified enrollment needs a TOTP or recovery code in mfa-validation-code (empty string if never verified)',
    tags,
    access: 'session',
    uses: ['mfa'],
    schema: { headers: MfaCodeHeader, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, request }) => {
      await domains.mfa.remove(auth!.identity, request.headers['mfa-validation-code'] as string | undefined);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/current-identity/mfa/qr-code',
    operationId: 'detailMfaQrCode',
    summary: 'Returns the provisioning URL of an unverified enrollment as a QR code (PNG, 256x256)',
    tags,
    access: 'session',
    uses: ['mfa'],
    produces: ['image/png'],
    schema: { response: { 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, reply }) => {
      const png = await domains.mfa.qrCode(auth!.identity);
      reply.code(200).type('image/png').header('cache-control', 'no-store').send(png);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/current-identity/mfa/verify',
    operationId: 'verifyMfa',
    summary: 'Completes TOTP enrollment with a code from the authenticator app',
    tags,
    access: 'session',
    uses: ['mfa'],
    schema: { body: MfaCodeBody, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, body }) => {
      await domains.mfa.verify(auth!.identity, body.code);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/current-identity/mfa/recovery-codes',
    operationId: 'detailMfaRecoveryCodes',
    summary: 'Shows the unused recovery codes of a verified enrollment, against a TOTP code in mfa-validation-code',
    tags,
    access: 'session',
    uses: ['mfa'],
    schema: { headers: MfaCodeHeader, response: { 200: Envelope(MfaRecoveryCodes), ...errors } },
    handler: async ({ domains, auth, request }) => {
      const status = await domains.mfa.recoveryCodes(auth!.identity, request.headers['mfa-validation-code'] as string | undefined);
      return envelope({ ...mfaView(status), recoveryCodes: status.recoveryCodes });
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/current-identity/mfa/recovery-codes',
    operationId: 'createMfaRecoveryCodes',
    summary: 'Replaces every recovery code, against a TOTP or recovery code; returns the new codes',
    tags,
    access: 'session',
    uses: ['mfa'],
    schema: { body: MfaCodeBody, response: { 200: Envelope(Type.Object({ recoveryCodes: Type.Array(Type.String()) })), ...errors } },
    handler: async ({ domains, auth, body }) => envelope({ recoveryCodes: await domains.mfa.regenerateRecoveryCodes(auth!.identity, body.code) }),
  }),
];
