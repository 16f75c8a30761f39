/**
 * Edge routers: searched by name, id or #attribute, sorted and paged by the API, with their online status and version
 * laid over the loaded rows as the controller pushes them (api/events.ts): a router going on- or offline changes its
 * row in place, without a reload and without polling.
 */
import { useLiveStatus, type LiveStatus } from '../../api/events';
import { Attributes, YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface EdgeRouterRow {
  id: string;
  name: string;
  isOnline?: boolean;
  version?: string;
  hostname?: string;
  isVerified?: boolean;
  roleAttributes?: string[] | null;
}

/** A router's status as last pushed, or as loaded when nothing was pushed since. */
export function liveRouter(live: LiveStatus, row: EdgeRouterRow): { isOnline: boolean; version: string } {
  const pushed = live.routers.get(row.id);
  return { isOnline: pushed?.isOnline ?? row.isOnline ?? false, version: pushed?.version || row.version || '' };
}

export const OnlineBadge = ({ online }: { online: boolean }) => <span class={online ? 'badge online' : 'badge offline'}>{online ? t.live.online : t.live.offline}</span>;

/** Says whether the live stream is open, for screen readers too (politely). */
export const LiveNote = ({ live }: { live: LiveStatus }) => (
  <p class="hint live-note" role="status">
    {live.connected ? t.live.connected : t.live.disconnected}
  </p>
);

export function EdgeRouterList() {
  const live = useLiveStatus();
  return (
    <ListScreen<EdgeRouterRow>
      title={t.edgeRouters.title}
      collection="/edge-routers"
      roleSearch
      actions={<Link href="/console/edge-routers/new">{t.edgeRouters.create}</Link>}
      filters={<LiveNote live={live} />}
      reloadKey={live.reconnects}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/edge-routers/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'status', label: t.edgeRouters.status, render: (row) => <OnlineBadge online={liveRouter(live, row).isOnline} /> },
        { key: 'version', label: t.edgeRouters.version, render: (row) => liveRouter(live, row).version || t.common.none },
        { key: 'isVerified', label: t.edgeRouters.verified, sort: 'isVerified', render: (row) => <YesNo value={row.isVerified} /> },
        { key: 'roleAttributes', label: t.common.roleAttributes, render: (row) => <Attributes values={row.roleAttributes} /> },
      ]}
    />
  );
}
