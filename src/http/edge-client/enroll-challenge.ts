/**
 * `POST /enroll/challenge` (spec: Enrollment challenge request/response): the controller signs the client's nonce
 * with the enrollment key the client names, proving it holds that key (services/enrollment/challenge.ts).
 */
import { Type } from 'typebox';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';

const NonceChallenge = Type.Object(
  {
    keyId: Type.String({ minLength: 1, maxLength: 256, description: 'the kid of an enrollment JWKS key (the enrollment JWT header kid)' }),
    nonce: Type.String({ format: 'uuid', description: 'a UUID of the client\'s choosing' }),
  },
  { additionalProperties: false },
);

const NonceSignature = Type.Object({
  algorithm: Type.String({ description: 'the JWS alg of the key: ES256, ES384, ES512, RS256 or EdDSA' }),
  caPool: Type.String({ description: 'the CAs (PEM) to trust when enrolling with this controller' }),
  kid: Type.String(),
  signature: Type.String({ description: 'base64url of the signature over the nonce text, made as a JWS signature is (RFC 7515 section 5.1)' }),
});

export const enrollChallengeRoute = defineRoute({
  method: 'POST',
  url: '/enroll/challenge',
  operationId: 'enrollmentChallenge',
  summary: 'Signs a nonce with the named enrollment key, so a client can check it is enrolling with the right controller',
  tags: ['Enroll'],
  access: 'none',
  uses: ['certificates'],
  schema: { body: NonceChallenge, response: { 200: Envelope(NonceSignature), 400: ApiErrorBody, 404: ApiErrorBody } },
  handler: async ({ domains, body }) => envelope(await domains.certificates.challenge.answer(body)),
});
