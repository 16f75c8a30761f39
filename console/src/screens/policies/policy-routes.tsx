/** The routes of the three kinds of policy: list, new, detail and edit, each screen bound to its kind. */
import type { Route } from '../../routes';
import { POLICY_KINDS, type PolicyKind } from './kinds';
import { PolicyDetail } from './policy-detail';
import { PolicyCreate, PolicyEdit } from './policy-form';
import { PolicyList } from './policy-list';

const routesOf = (kind: PolicyKind): Route[] => [
  { pattern: `/console/${kind.entity}`, component: () => <PolicyList kind={kind} /> },
  { pattern: `/console/${kind.entity}/new`, component: () => <PolicyCreate kind={kind} /> },
  { pattern: `/console/${kind.entity}/:id/edit`, component: ({ params }) => <PolicyEdit key={params.id} kind={kind} id={params.id!} /> },
  { pattern: `/console/${kind.entity}/:id`, component: ({ params }) => <PolicyDetail key={params.id} kind={kind} id={params.id!} /> },
];

export const POLICY_ROUTES: Route[] = POLICY_KINDS.flatMap(routesOf);

export const POLICY_NAVIGATION = POLICY_KINDS.map((kind) => ({ href: `/console/${kind.entity}`, label: kind.title }));
