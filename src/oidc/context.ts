/**
 * What every OIDC endpoint is given: the OIDC domain's services (and nothing else of the composition root) and where
 * the request arrived (issuer, redirect URIs).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessTokenVerifier } from '../services/oidc-provider/oidc-access-tokens.js';
import type { OidcBindPoint, OidcProviderService } from '../services/oidc-provider/oidc-provider.js';
import type { OidcFactorService } from '../services/oidc-provider/oidc-factors.js';
import type { ExternalIdpLogins } from '../services/external-jwt/external-idp.js';

export interface OidcContext {
  readonly provider: OidcProviderService;
  readonly accessTokens: AccessTokenVerifier;
  readonly factors: OidcFactorService;
  /** External IdPs offered on the login page (decision 0084). */
  readonly externalIdp: ExternalIdpLogins;
  readonly where: OidcBindPoint;
}

/** One endpoint of the provider: each file under endpoints/ exports one or more of these. */
export interface OidcEndpoint {
  readonly method: 'GET' | 'POST' | 'DELETE' | Array<'GET' | 'POST'>;
  readonly url: string;
  handler(context: OidcContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}
