/**
 * One policy: its facts, each role list with the names its `@id`s stand for, edit, and delete. Delete first shows
 * who would lose access (the API's change preview with `delete: true`) and deletes only on confirm.
 */
import { useState } from 'preact/hooks';
import { DeleteReview } from '../../components/delete-review';
import { DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { DateTime, YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { navigate } from '../../router';
import { t } from '../../strings';
import { consolePath, type Policy, type PolicyKind } from './kinds';
import { RoleList } from './policy-list';

export function PolicyDetail({ kind, id }: { kind: PolicyKind; id: string }) {
  const { entity: policy, error } = useEntity<Policy>(`/${kind.entity}/${encodeURIComponent(id)}`);
  const [deleting, setDeleting] = useState(false);
  return (
    <DetailScreen
      title={policy?.name}
      error={error}
      actions={
        policy && (
          <span class="actions">
            <Link href={consolePath(kind, policy.id, '/edit')} class="button">
              {t.policies.edit}
            </Link>
            <button type="button" class="danger" onClick={() => setDeleting(true)} disabled={deleting}>
              {t.common.delete}
            </button>
          </span>
        )
      }
    >
      {policy && (
        <>
          {deleting && (
            <DeleteReview
              entity={kind.entity}
              id={policy.id}
              question={t.policies.deleteQuestion(policy.name)}
              onDeleted={() => navigate(consolePath(kind))}
              onCancel={() => setDeleting(false)}
            />
          )}
          <Facts
            facts={[
              [t.common.id, policy.id],
              ...(kind.typed ? [[t.policies.type, policy.type] as [string, string | undefined]] : []),
              [t.policies.semantic, policy.semantic],
              ...(policy.isSystem !== undefined ? [[t.policies.system, <YesNo value={policy.isSystem} />] as [string, preact.ComponentChildren]] : []),
              [t.common.createdAt, <DateTime value={policy.createdAt} />],
              [t.common.updatedAt, <DateTime value={policy.updatedAt} />],
            ]}
          />
          {kind.roles.map((field) => (
            <Section key={field.name} title={field.label}>
              <RoleList policy={policy} field={field.name} />
            </Section>
          ))}
        </>
      )}
    </DetailScreen>
  );
}
