/**
 * The shape every grant module exports (after node-oidc-provider's grants): the `grant_type` it answers, the
 * parameters it requires, and its handler over the parsed token request. The registry is index.ts; a grant's
 * rules are in services/oidc-provider/grants/, reached through the provider service.
 */
import type { OidcContext } from '../context.js';
import type { Params, TokenResponse } from '../../services/oidc-provider/oidc-provider.js';

export interface OidcGrant {
  readonly grantType: string;
  readonly parameters: readonly string[];
  handler(context: OidcContext, params: Params): Promise<TokenResponse>;
}
