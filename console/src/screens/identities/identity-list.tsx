/**
 * Identities: searched by name, id or #attribute, sorted and paged by the API, with their live status (an API session
 * or an edge router connection) laid over the loaded rows as the controller pushes it (api/events.ts): a login or a
 * logout changes the row in place, without a reload and without polling.
 */
import { useLiveStatus, type LiveStatus } from '../../api/events';
import { Link } from '../../components/link';
import { Attributes, YesNo } from '../../components/fields';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';
import { LiveNote, OnlineBadge } from '../edge-routers/router-list';

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

/** An identity's presence as last pushed, or as loaded when nothing was pushed since; online with either. */
export function liveIdentity(live: LiveStatus, row: IdentityRow): { hasApiSession: boolean; hasEdgeRouterConnection: boolean; online: boolean } {
  const pushed = live.identities.get(row.id);
  const hasApiSession = pushed?.hasApiSession ?? row.hasApiSession ?? false;
  const hasEdgeRouterConnection = pushed?.hasEdgeRouterConnection ?? row.hasEdgeRouterConnection ?? false;
  return { hasApiSession, hasEdgeRouterConnection, online: hasApiSession || hasEdgeRouterConnection };
}

export function IdentityList() {
  const live = useLiveStatus();
  return (
    <ListScreen<IdentityRow>
      title={t.identities.title}
      collection="/identities"
      roleSearch
      actions={<Link href="/console/identities/new">{t.identities.create}</Link>}
      filters={<LiveNote live={live} />}
      reloadKey={live.reconnects}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/identities/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'type', label: t.common.type, render: (row) => row.type?.name ?? row.typeId ?? t.common.none },
        { key: 'isAdmin', label: t.identities.isAdmin, sort: 'isAdmin', render: (row) => <YesNo value={row.isAdmin} /> },
        { key: 'status', label: t.identities.status, render: (row) => <OnlineBadge online={liveIdentity(live, row).online} /> },
        { key: 'roleAttributes', label: t.common.roleAttributes, render: (row) => <Attributes values={row.roleAttributes} /> },
      ]}
    />
  );
}
