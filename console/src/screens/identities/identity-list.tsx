/** Identities: searched by name, id or #attribute, sorted and paged by the API. */
import { Link } from '../../components/link';
import { Attributes, YesNo } from '../../components/fields';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface IdentityRow {
  id: string;
  name: string;
  type?: { name?: string } | null;
  typeId?: string;
  isAdmin?: boolean;
  roleAttributes?: string[] | null;
  hasApiSession?: boolean;
  hasEdgeRouterConnection?: boolean;
}

export function IdentityList() {
  return (
    <ListScreen<IdentityRow>
      title={t.identities.title}
      collection="/identities"
      roleSearch
      actions={<Link href="/console/identities/new">{t.identities.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/identities/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'type', label: t.common.type, render: (row) => row.type?.name ?? row.typeId ?? t.common.none },
        { key: 'isAdmin', label: t.identities.isAdmin, sort: 'isAdmin', render: (row) => <YesNo value={row.isAdmin} /> },
        { key: 'online', label: t.identities.online, render: (row) => <YesNo value={row.hasEdgeRouterConnection} /> },
        { key: 'roleAttributes', label: t.common.roleAttributes, render: (row) => <Attributes values={row.roleAttributes} /> },
      ]}
    />
  );
}
