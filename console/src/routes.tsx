/**
 * The console's screens: the navigation and the route table. Adding a screen is a file under screens/ and a line
 * here.
 */
import type { ComponentType } from 'preact';
import { IdentityList } from './screens/identities/identity-list';
import { t } from './strings';

export interface Route {
  pattern: string;
  component: ComponentType<{ params: Record<string, string> }>;
}

export const NAVIGATION: { href: string; label: string }[] = [{ href: '/console/identities', label: t.nav.identities }];

export const ROUTES: Route[] = [{ pattern: '/console/identities', component: IdentityList }];

/** Where /console/ itself goes. */
export const HOME = '/console/identities';
