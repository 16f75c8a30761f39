/** Services: searched by name, id or #attribute, sorted and paged by the API. */
import { Attributes, YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface ServiceRow {
  id: string;
  name: string;
  roleAttributes?: string[] | null;
  encryptionRequired?: boolean;
  terminatorStrategy?: string;
}

export function ServiceList() {
  return (
    <ListScreen<ServiceRow>
      title={t.services.title}
      collection="/services"
      roleSearch
      actions={<Link href="/console/services/new">{t.services.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/services/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'encryptionRequired', label: t.services.encryption, render: (row) => <YesNo value={row.encryptionRequired} /> },
        { key: 'terminatorStrategy', label: t.services.strategy, render: (row) => row.terminatorStrategy ?? t.common.none },
        { key: 'roleAttributes', label: t.common.roleAttributes, render: (row) => <Attributes values={row.roleAttributes} /> },
      ]}
    />
  );
}
