/** Terminators: where each service is hosted (router, binding, address), with names beside the ids, paged by the API. */
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

interface Ref {
  id: string;
  name: string;
}

interface TerminatorRow {
  id: string;
  service: Ref;
  router: Ref;
  binding: string;
  address: string;
  identity: string;
  cost: number;
  precedence: string;
}

export function TerminatorList() {
  return (
    <ListScreen<TerminatorRow>
      title={t.terminators.title}
      collection="/terminators"
      searchFields={['address']}
      defaultSort="address asc"
      columns={[
        { key: 'service', label: t.terminators.service, render: (row) => row.service.name || row.service.id },
        { key: 'router', label: t.terminators.router, render: (row) => <Link href={`/console/edge-routers/${encodeURIComponent(row.router.id)}`}>{row.router.name || row.router.id}</Link> },
        { key: 'binding', label: t.terminators.binding, sort: 'binding' },
        { key: 'address', label: t.terminators.address, sort: 'address' },
        { key: 'identity', label: t.terminators.identity, render: (row) => row.identity || t.common.none },
        { key: 'cost', label: t.terminators.cost, sort: 'cost' },
        { key: 'precedence', label: t.terminators.precedence, sort: 'precedence' },
      ]}
    />
  );
}
