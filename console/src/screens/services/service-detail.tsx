/** One service: its settings, the configs it carries (each opening the config editor), edit and delete. */
import { api } from '../../api/client';
import { ConfirmButton, DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { Attributes, YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { navigate } from '../../router';
import { t } from '../../strings';
import type { ServiceRow } from './service-list';

export function ServiceDetail({ params }: { params: Record<string, string> }) {
  const path = `/services/${encodeURIComponent(params.id!)}`;
  const { entity: service, error } = useEntity<ServiceRow>(path);
  return (
    <DetailScreen
      title={service?.name}
      error={error}
      actions={
        service && (
          <>
            <Link href={`/console/services/${encodeURIComponent(service.id)}/edit`}>{t.services.edit}</Link>
            <ConfirmButton label={t.common.delete} question={t.services.deleteQuestion(service.name)} onConfirm={async () => (await api('DELETE', path), navigate('/console/services'))} />
          </>
        )
      }
    >
      {service && (
        <>
          <Facts
            facts={[
              [t.common.id, service.id],
              [t.services.encryption, <YesNo value={service.encryptionRequired} />],
              [t.services.strategy, service.terminatorStrategy ?? t.common.none],
              [t.common.roleAttributes, <Attributes values={service.roleAttributes} />],
            ]}
          />
          <Section title={t.configs.title}>
            <ListScreen<{ id: string; name: string; configType?: { name?: string } | null }>
              title={t.configs.title}
              collection={`${path}/configs`}
              embedded
              columns={[
                { key: 'name', label: t.common.name, render: (row) => <Link href={`/console/configs/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
                { key: 'type', label: t.common.type, render: (row) => row.configType?.name ?? t.common.none },
              ]}
            />
          </Section>
        </>
      )}
    </DetailScreen>
  );
}
