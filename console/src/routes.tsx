/**
 * The console's screens: the navigation and the route table. Adding a screen is a file under screens/ and a line
 * here.
 */
import type { ComponentType } from 'preact';
import { IdentityList } from './screens/identities/identity-list';
import { IdentityDetail } from './screens/identities/identity-detail';
import { ServiceList } from './screens/services/service-list';
import { ServiceDetail } from './screens/services/service-detail';
import { ConfigList } from './screens/configs/config-list';
import { ConfigCreate, ConfigEdit } from './screens/configs/config-form';
// screens-a
import { IdentityCreate } from './screens/identities/identity-create';
import { ServiceCreate, ServiceEdit } from './screens/services/service-form';
// end screens-a
// screens-b
import { POLICY_NAVIGATION, POLICY_ROUTES } from './screens/policies/policy-routes';
import { ReachScreen } from './screens/reach/reach';
// end screens-b
import { t } from './strings';
// screens-c
import { AuditTrail } from './screens/audit/audit-trail';
import { AuthPolicyList } from './screens/auth-policies/auth-policy-list';
import { AuthPolicyEdit } from './screens/auth-policies/auth-policy-form';
import { CaCreate } from './screens/cas/ca-create';
import { CaDetail } from './screens/cas/ca-detail';
import { CaList } from './screens/cas/ca-list';
import { EdgeRouterCreate } from './screens/edge-routers/router-create';
import { EdgeRouterDetail } from './screens/edge-routers/router-detail';
import { EdgeRouterList } from './screens/edge-routers/router-list';
import { ExpiryBoard } from './screens/expiries/expiry-board';
import { SignerCreate, SignerEdit } from './screens/external-jwt-signers/signer-form';
import { SignerList } from './screens/external-jwt-signers/signer-list';
import { PostureCheckCreate, PostureCheckEdit } from './screens/posture-checks/posture-check-form';
import { PostureCheckList } from './screens/posture-checks/posture-check-list';
import { ApiSessionList } from './screens/sessions/api-session-list';
import { SessionList } from './screens/sessions/session-list';
import { TerminatorList } from './screens/terminators/terminator-list';
// end screens-c

export interface Route {
  pattern: string;
  component: ComponentType<{ params: Record<string, string> }>;
}

export const NAVIGATION: { href: string; label: string }[] = [
  { href: '/console/identities', label: t.nav.identities },
  { href: '/console/services', label: t.nav.services },
  { href: '/console/configs', label: t.nav.configs },
  // screens-b
  ...POLICY_NAVIGATION,
  { href: '/console/reach', label: t.nav.reach },
  // end screens-b
  // screens-c
  { href: '/console/edge-routers', label: t.nav.edgeRouters },
  { href: '/console/terminators', label: t.nav.terminators },
  { href: '/console/posture-checks', label: t.nav.postureChecks },
  { href: '/console/cas', label: t.nav.cas },
  { href: '/console/external-jwt-signers', label: t.nav.externalJwtSigners },
  { href: '/console/auth-policies', label: t.nav.authPolicies },
  { href: '/console/api-sessions', label: t.nav.apiSessions },
  { href: '/console/sessions', label: t.nav.sessions },
  { href: '/console/audit', label: t.nav.audit },
  { href: '/console/expiries', label: t.nav.expiries },
  // end screens-c
];

export const ROUTES: Route[] = [
  { pattern: '/console/identities', component: IdentityList },
  // screens-a
  { pattern: '/console/identities/new', component: IdentityCreate },
  { pattern: '/console/services/new', component: ServiceCreate },
  { pattern: '/console/services/:id/edit', component: ServiceEdit },
  // end screens-a
  { pattern: '/console/identities/:id', component: IdentityDetail },
  { pattern: '/console/services', component: ServiceList },
  { pattern: '/console/services/:id', component: ServiceDetail },
  { pattern: '/console/configs', component: ConfigList },
  { pattern: '/console/configs/new', component: ConfigCreate },
  { pattern: '/console/configs/:id', component: ConfigEdit },
  // screens-b
  ...POLICY_ROUTES,
  { pattern: '/console/reach', component: ReachScreen },
  // end screens-b
  // screens-c
  { pattern: '/console/edge-routers', component: EdgeRouterList },
  { pattern: '/console/edge-routers/new', component: EdgeRouterCreate },
  { pattern: '/console/edge-routers/:id', component: EdgeRouterDetail },
  { pattern: '/console/terminators', component: TerminatorList },
  { pattern: '/console/posture-checks', component: PostureCheckList },
  { pattern: '/console/posture-checks/new', component: PostureCheckCreate },
  { pattern: '/console/posture-checks/:id', component: PostureCheckEdit },
  { pattern: '/console/cas', component: CaList },
  { pattern: '/console/cas/new', component: CaCreate },
  { pattern: '/console/cas/:id', component: CaDetail },
  { pattern: '/console/external-jwt-signers', component: SignerList },
  { pattern: '/console/external-jwt-signers/new', component: SignerCreate },
  { pattern: '/console/external-jwt-signers/:id', component: SignerEdit },
  { pattern: '/console/auth-policies', component: AuthPolicyList },
  { pattern: '/console/auth-policies/:id', component: AuthPolicyEdit },
  { pattern: '/console/api-sessions', component: ApiSessionList },
  { pattern: '/console/sessions', component: SessionList },
  { pattern: '/console/audit', component: AuditTrail },
  { pattern: '/console/expiries', component: ExpiryBoard },
  // end screens-c
];

/** Where /console/ itself goes. */
export const HOME = '/console/identities';
