/** Posture checks: searched by name, id or #attribute, sorted and paged by the API, with what each one checks. */
import { Attributes } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';
import type { PostureCheck } from './posture-check-form';

/** A line saying what the check asks for (its type's own fields). */
export function postureSummary(check: PostureCheck): string {
  switch (check.typeId) {
    case 'OS':
      return (check.operatingSystems ?? []).map((os) => [os.type, ...(os.versions ?? [])].join(' ')).join('; ');
    case 'MAC':
      return (check.macAddresses ?? []).join(', ');
    case 'DOMAIN':
      return (check.domains ?? []).join(', ');
    case 'PROCESS':
      return check.process ? `${check.process.osType} ${check.process.path}` : '';
    case 'PROCESS_MULTI':
      return (check.processes ?? []).map((process) => process.path).join(', ');
    case 'MFA':
      return check.timeoutSeconds !== undefined && check.timeoutSeconds > 0 ? `${t.postureChecks.timeoutSeconds}: ${check.timeoutSeconds}` : '';
    default:
      return '';
  }
}

export function PostureCheckList() {
  return (
    <ListScreen<PostureCheck>
      title={t.postureChecks.title}
      collection="/posture-checks"
      roleSearch
      actions={<Link href="/console/posture-checks/new">{t.postureChecks.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/posture-checks/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'typeId', label: t.postureChecks.typeId, sort: 'typeId', render: (row) => t.postureChecks.types[row.typeId] ?? row.typeId },
        { key: 'summary', label: t.postureChecks.summary, render: (row) => postureSummary(row) || t.common.none },
        { key: 'roleAttributes', label: t.common.roleAttributes, render: (row) => <Attributes values={row.roleAttributes} /> },
      ]}
    />
  );
}
