/**
 * A new identity: name, type, admin, role attributes, auth policy and how it enrolls (a one-time token for a
 * certificate, a username for a password, or none yet), kept as a draft while typed. Saved, it opens on its page,
 * where the enrollment JWT waits to be handed over. The API's refusal shows at the field it names
 * (`enrollment.updb` for a username already taken).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, get, query } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { AttributesField, CheckboxField, Form, SelectField, TextField } from '../../components/form';
import { navigate } from '../../router';
import { t } from '../../strings';

type Enrollment = 'ott' | 'updb' | 'none';

interface Draft {
  name: string;
  type: string;
  isAdmin: boolean;
  roleAttributes: string[];
  authPolicyId: string;
  enrollment: Enrollment;
  username: string;
}

const EMPTY: Draft = { name: '', type: 'Default', isAdmin: false, roleAttributes: [], authPolicyId: '', enrollment: 'ott', username: '' };

/** The choices of a select from a small collection (types, auth policies): one page, by name. */
function useChoices(collection: string, setError: (error: unknown) => void): { id: string; name: string }[] {
  const [choices, setChoices] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    get<{ id: string; name: string }[]>(`${collection}${query({ sort: 'name asc', limit: 100 })}`, abort.signal)
      .then((answer) => setChoices(answer.data))
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [collection]);
  return choices;
}

/** The POST body the draft stands for. */
function bodyOf(draft: Draft): Record<string, unknown> {
  const enrollment = draft.enrollment === 'ott' ? { ott: true } : draft.enrollment === 'updb' ? { updb: draft.username } : undefined;
  return {
    name: draft.name,
    type: draft.type,
    isAdmin: draft.isAdmin,
    roleAttributes: draft.roleAttributes,
    ...(draft.authPolicyId ? { authPolicyId: draft.authPolicyId } : {}),
    ...(enrollment ? { enrollment } : {}),
  };
}

export function IdentityCreate() {
  const [draft, setDraft, discard] = useDraft<Draft>('identity-new', () => ({ ...EMPTY }));
  const [error, setError] = useState<unknown>(undefined);
  const types = useChoices('/identity-types', setError);
  const policies = useChoices('/auth-policies', setError);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">{t.identities.createTitle}</h1>
      <Form
        label={t.identities.createTitle}
        submitLabel={t.common.create}
        error={error}
        setError={setError}
        fieldNames={['name', 'type', 'isAdmin', 'roleAttributes', 'authPolicyId', 'enrollment', 'enrollment.updb']}
        onCancel={() => (discard(), navigate('/console/identities'))}
        onSubmit={async () => {
          const created = await api<{ id: string }>('POST', '/identities', bodyOf(draft));
          discard();
          navigate(`/console/identities/${encodeURIComponent(created.data.id)}`);
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <SelectField
          name="type"
          label={t.common.type}
          value={draft.type}
          options={(types.length > 0 ? types : [{ id: draft.type, name: draft.type }]).map((type) => ({ value: type.name, label: type.name }))}
          onChange={(type) => set({ type })}
          error={error}
        />
        <CheckboxField name="isAdmin" label={t.identities.isAdminField} checked={draft.isAdmin} onChange={(isAdmin) => set({ isAdmin })} error={error} />
        <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={draft.roleAttributes} onInput={(roleAttributes) => set({ roleAttributes })} error={error} />
        <SelectField
          name="authPolicyId"
          label={t.identities.authPolicy}
          value={draft.authPolicyId}
          options={[{ value: '', label: t.identities.defaultAuthPolicy }, ...policies.filter((policy) => policy.id !== 'default').map((policy) => ({ value: policy.id, label: policy.name }))]}
          onChange={(authPolicyId) => set({ authPolicyId })}
          error={error}
        />
        <SelectField
          name="enrollment"
          label={t.identities.enrollWith}
          value={draft.enrollment}
          options={[
            { value: 'ott', label: t.identities.enrollOtt },
            { value: 'updb', label: t.identities.enrollUpdb },
            { value: 'none', label: t.identities.enrollNone },
          ]}
          onChange={(enrollment) => set({ enrollment: enrollment as Enrollment })}
          error={error}
        />
        {draft.enrollment === 'updb' && (
          <TextField name="enrollment.updb" label={t.identities.username} value={draft.username} onInput={(username) => set({ username })} error={error} hint={t.identities.usernameHint} required />
        )}
      </Form>
    </section>
  );
}
