/**
 * The console's screens: the navigation and the route table. Adding a screen is a file under screens/ and a line
 * here.
 */
import type { ComponentType } from 'preact';
import { IdentityList } from './screens/identities/identity-list';
// screens-b
import { POLICY_NAVIGATION, POLICY_ROUTES } from './screens/policies/policy-routes';
import { ReachScreen } from './screens/reach/reach';
// end screens-b
import { t } from './strings';

export interface Route {
  pattern: string;
  component: ComponentType<{ params: Record<string, string> }>;
}

export const NAVIGATION: { href: string; label: string }[] = [
  { href: '/console/identities', label: t.nav.identities },
  // screens-b
  ...POLICY_NAVIGATION,
  { href: '/console/reach', label: t.nav.reach },
  // end screens-b
];

export const ROUTES: Route[] = [
  { pattern: '/console/identities', component: IdentityList },
  // screens-b
  ...POLICY_ROUTES,
  { pattern: '/console/reach', component: ReachScreen },
  // end screens-b
];

/** Where /console/ itself goes. */
export const HOME = '/console/identities';
