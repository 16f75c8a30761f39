/** Configs: searched by name, sorted and paged by the API, each with its type. */
import { Link } from '../../components/link';
import { DateTime } from '../../components/fields';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

interface ConfigRow {
  id: string;
  name: string;
  configType?: { name?: string } | null;
  createdAt: string;
}

export function ConfigList() {
  return (
    <ListScreen<ConfigRow>
      title={t.configs.title}
      collection="/configs"
      actions={<Link href="/console/configs/new">{t.configs.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/configs/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'type', label: t.common.type, render: (row) => row.configType?.name ?? t.common.none },
        { key: 'createdAt', label: t.common.createdAt, sort: 'createdAt', render: (row) => <DateTime value={row.createdAt} /> },
      ]}
    />
  );
}
