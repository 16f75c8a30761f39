/**
 * Creating and editing a policy of any kind: name, type (service policies), semantic, and a role picker per role
 * list, kept as a draft while typed. Saving is two steps: "Review the change" asks the API who would gain and lose
 * access (nothing is saved), and only the confirm button, which says what it will do, sends the POST or PATCH. A
 * refusal returns to the form with the API's message at the field it names.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ChangePreview, saveLabel, useChangePreview } from '../../components/change-preview';
import { DetailScreen, useEntity } from '../../components/detail';
import { fieldError, Form, SelectField, TextField } from '../../components/form';
import { RolePicker } from '../../components/role-picker';
import { navigate } from '../../router';
import { t } from '../../strings';
import { consolePath, namesOf, rolesOf, type Policy, type PolicyKind } from './kinds';

interface Draft {
  name: string;
  type: 'Dial' | 'Bind';
  semantic: 'AllOf' | 'AnyOf';
  roles: Record<string, string[]>;
  names: Record<string, string>;
}

function initialOf(kind: PolicyKind, policy?: Policy): Draft {
  return {
    name: policy?.name ?? '',
    type: policy?.type ?? 'Dial',
    semantic: policy?.semantic ?? 'AllOf',
    roles: Object.fromEntries(kind.roles.map((field) => [field.name, policy ? rolesOf(policy, field.name) : []])),
    names: policy ? namesOf(policy) : {},
  };
}

/** The POST or PATCH body the draft stands for (every field, so the preview and the save see the same policy). */
function bodyOf(kind: PolicyKind, draft: Draft): Record<string, unknown> {
  return {
    name: draft.name,
    ...(kind.typed ? { type: draft.type } : {}),
    semantic: draft.semantic,
    ...Object.fromEntries(kind.roles.map((field) => [field.name, draft.roles[field.name] ?? []])),
  };
}

/** Sends the draft: PATCH for an existing policy, POST for a new one; the saved policy's id. */
async function send(kind: PolicyKind, policy: Policy | undefined, body: Record<string, unknown>): Promise<string> {
  if (policy) {
    await api<unknown>('PATCH', `/${kind.entity}/${encodeURIComponent(policy.id)}`, body);
    return policy.id;
  }
  return (await api<{ id: string }>('POST', `/${kind.entity}`, body)).data.id;
}

function Review(props: { kind: PolicyKind; policy?: Policy; body: Record<string, unknown>; onBack: (error?: unknown) => void; onSaved: (id: string) => void }) {
  const state = useChangePreview({ entity: props.kind.entity, id: props.policy?.id, change: props.body });
  const [busy, setBusy] = useState(false);
  const verb = props.policy ? t.preview.save : t.preview.create;
  const save = async () => {
    setBusy(true);
    try {
      props.onSaved(await send(props.kind, props.policy, props.body));
    } catch (error) {
      props.onBack(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <ChangePreview entity={props.kind.entity} change={props.body} state={state} />
      <div class="actions">
        <button type="button" class="primary" disabled={busy || (state.preview === undefined && state.error === undefined)} aria-busy={busy} onClick={() => void save()}>
          {saveLabel(verb, state.preview)}
        </button>
        <button type="button" onClick={() => props.onBack()}>
          {t.policies.backToEdit}
        </button>
      </div>
    </>
  );
}

function PolicyEditor({ kind, policy }: { kind: PolicyKind; policy?: Policy }) {
  const [draft, setDraft, discard] = useDraft<Draft>(`${kind.entity}.${policy?.id ?? 'new'}`, () => initialOf(kind, policy));
  const [error, setError] = useState<unknown>(undefined);
  const [reviewing, setReviewing] = useState(false);
  const title = policy ? t.policies.editPolicy(policy.name) : t.policies.newPolicy(kind.singular);
  const leave = (to: string) => (discard(), navigate(to));
  const body = bodyOf(kind, draft);
  return (
    <section class="detail" aria-labelledby="form-title">
      <header class="screen-head">
        <h1 id="form-title">{title}</h1>
      </header>
      {reviewing ? (
        <Review
          kind={kind}
          policy={policy}
          body={body}
          onBack={(problem) => (setError(problem), setReviewing(false))}
          onSaved={(id) => leave(consolePath(kind, id))}
        />
      ) : (
        <Form
          label={title}
          submitLabel={t.policies.review}
          onSubmit={async () => setReviewing(true)}
          onCancel={() => leave(policy ? consolePath(kind, policy.id) : consolePath(kind))}
          error={error}
          setError={setError}
          fieldNames={['name', 'type', 'semantic', ...kind.roles.map((field) => field.name)]}
        >
          <TextField name="name" label={t.common.name} value={draft.name} required error={error} onInput={(name) => setDraft({ ...draft, name })} />
          {kind.typed && (
            <SelectField
              name="type"
              label={t.policies.type}
              value={draft.type}
              error={error}
              options={[
                { value: 'Dial', label: t.policies.dial },
                { value: 'Bind', label: t.policies.bind },
              ]}
              onChange={(type) => setDraft({ ...draft, type: type as Draft['type'] })}
            />
          )}
          <SelectField
            name="semantic"
            label={t.policies.semantic}
            hint={t.policies.semanticHint}
            value={draft.semantic}
            error={error}
            options={[
              { value: 'AllOf', label: t.policies.allOf },
              { value: 'AnyOf', label: t.policies.anyOf },
            ]}
            onChange={(semantic) => setDraft({ ...draft, semantic: semantic as Draft['semantic'] })}
          />
          {kind.roles.map((field) => (
            <RolePicker
              key={field.name}
              name={field.name}
              label={field.label}
              collection={field.collection}
              what={field.what}
              roles={draft.roles[field.name] ?? []}
              names={draft.names}
              semantic={draft.semantic}
              problem={fieldError(error, field.name)}
              onChange={(roles, names) => setDraft({ ...draft, roles: { ...draft.roles, [field.name]: roles }, names })}
            />
          ))}
        </Form>
      )}
    </section>
  );
}

export function PolicyCreate({ kind }: { kind: PolicyKind }) {
  return <PolicyEditor key={`${kind.entity}-new`} kind={kind} />;
}

export function PolicyEdit({ kind, id }: { kind: PolicyKind; id: string }) {
  const { entity, error } = useEntity<Policy>(`/${kind.entity}/${encodeURIComponent(id)}`);
  if (error !== undefined || entity === undefined) return <DetailScreen title={undefined} error={error} />;
  return <PolicyEditor key={`${kind.entity}-${id}`} kind={kind} policy={entity} />;
}
