/** A list of one kind of policy: searched by name or id, sorted and paged by the API; each role list shown with names. */
import { Link } from '../../components/link';
import { ListScreen, type Column } from '../../components/list-screen';
import { roleLabel } from '../../components/role-picker';
import { t } from '../../strings';
import { consolePath, namesOf, rolesOf, type Policy, type PolicyKind } from './kinds';

export function RoleList({ policy, field }: { policy: Policy; field: string }) {
  const roles = rolesOf(policy, field);
  if (roles.length === 0) return <span>{t.common.none}</span>;
  const names = namesOf(policy);
  return (
    <ul class="chips">
      {roles.map((role) => (
        <li key={role}>{roleLabel(role, names)}</li>
      ))}
    </ul>
  );
}

export function PolicyList({ kind }: { kind: PolicyKind }) {
  const columns: Column<Policy>[] = [
    { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={consolePath(kind, row.id)}>{row.name}</Link> },
    ...(kind.typed ? [{ key: 'type', label: t.policies.type, sort: 'type' }] : []),
    { key: 'semantic', label: t.policies.semantic, sort: 'semantic' },
    ...kind.roles.map((field) => ({ key: field.name, label: field.label, render: (row: Policy) => <RoleList policy={row} field={field.name} /> })),
  ];
  return (
    <ListScreen<Policy>
      key={kind.entity}
      title={kind.title}
      collection={`/${kind.entity}`}
      columns={columns}
      actions={
        <Link href={consolePath(kind, undefined, '/new')} class="button primary">
          {t.policies.newPolicy(kind.singular)}
        </Link>
      }
    />
  );
}
