/** Registering a CA from its PEM certificate; it opens on its page, unverified, with its verification token. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { AttributesField, CheckboxField, Form, TextField } from '../../components/form';
import { navigate } from '../../router';
import { t } from '../../strings';

export function CaCreate() {
  const [draft, setDraft, discard] = useDraft('ca-new', () => ({
    name: '',
    certPem: '',
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: false,
    isOttCaEnrollmentEnabled: true,
    identityRoles: [] as string[],
  }));
  const [error, setError] = useState<unknown>(undefined);
  const set = (change: Partial<typeof draft>) => setDraft({ ...draft, ...change });
  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">{t.cas.createTitle}</h1>
      <Form
        label={t.cas.createTitle}
        submitLabel={t.common.create}
        error={error}
        setError={setError}
        fieldNames={['name', 'certPem', 'isAuthEnabled', 'isAutoCaEnrollmentEnabled', 'isOttCaEnrollmentEnabled', 'identityRoles']}
        onCancel={() => (discard(), navigate('/console/cas'))}
        onSubmit={async () => {
          const created = await api<{ id: string }>('POST', '/cas', draft);
          discard();
          navigate(`/console/cas/${encodeURIComponent(created.data.id)}`);
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <TextField name="certPem" label={t.cas.certPem} multiline value={draft.certPem} onInput={(certPem) => set({ certPem })} error={error} required />
        <CheckboxField name="isAuthEnabled" label={t.cas.authEnabled} checked={draft.isAuthEnabled} onChange={(isAuthEnabled) => set({ isAuthEnabled })} error={error} />
        <CheckboxField name="isAutoCaEnrollmentEnabled" label={t.cas.autoEnrollment} checked={draft.isAutoCaEnrollmentEnabled} onChange={(isAutoCaEnrollmentEnabled) => set({ isAutoCaEnrollmentEnabled })} error={error} />
        <CheckboxField name="isOttCaEnrollmentEnabled" label={t.cas.ottCaEnrollment} checked={draft.isOttCaEnrollmentEnabled} onChange={(isOttCaEnrollmentEnabled) => set({ isOttCaEnrollmentEnabled })} error={error} />
        <AttributesField name="identityRoles" label={t.cas.identityRoles} value={draft.identityRoles} onInput={(identityRoles) => set({ identityRoles })} error={error} />
      </Form>
    </section>
  );
}
