/** A new edge router: name, role attributes, tunneler and cost; saved, it opens on its page with the enrollment JWT. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { AttributesField, CheckboxField, Form, TextField } from '../../components/form';
import { navigate } from '../../router';
import { t } from '../../strings';

export function EdgeRouterCreate() {
  const [draft, setDraft, discard] = useDraft('edge-router-new', () => ({ name: '', roleAttributes: [] as string[], isTunnelerEnabled: false, cost: '0' }));
  const [error, setError] = useState<unknown>(undefined);
  const set = (change: Partial<typeof draft>) => setDraft({ ...draft, ...change });
  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">{t.edgeRouters.createTitle}</h1>
      <Form
        label={t.edgeRouters.createTitle}
        submitLabel={t.common.create}
        error={error}
        setError={setError}
        fieldNames={['name', 'roleAttributes', 'isTunnelerEnabled', 'cost']}
        onCancel={() => (discard(), navigate('/console/edge-routers'))}
        onSubmit={async () => {
          const cost = draft.cost.trim() === '' ? 0 : Number(draft.cost);
          const created = await api<{ id: string }>('POST', '/edge-routers', { name: draft.name, roleAttributes: draft.roleAttributes, isTunnelerEnabled: draft.isTunnelerEnabled, cost });
          discard();
          navigate(`/console/edge-routers/${encodeURIComponent(created.data.id)}`);
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={draft.roleAttributes} onInput={(roleAttributes) => set({ roleAttributes })} error={error} />
        <CheckboxField name="isTunnelerEnabled" label={t.edgeRouters.tunneler} checked={draft.isTunnelerEnabled} onChange={(isTunnelerEnabled) => set({ isTunnelerEnabled })} error={error} />
        <TextField name="cost" label={t.edgeRouters.cost} type="number" value={draft.cost} onInput={(cost) => set({ cost })} error={error} />
      </Form>
    </section>
  );
}
