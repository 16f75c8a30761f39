/**
 * An entity's role attributes edited in place, with the change preview (who gains and loses what) shown before the
 * save and the save button saying what it will do. The identity and edge router pages use it; the draft survives a
 * reload (drafts.ts) until it is saved or the page moves on.
 */
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { useDraft } from '../api/drafts';
import { t } from '../strings';
import { ChangePreview, saveLabel, useChangePreview } from './change-preview';
import { AttributesField, Form } from './form';

export interface RoleAttributesEditorProps {
  entity: 'identities' | 'edge-routers';
  id: string;
  current: string[] | null | undefined;
  /** Called once the API saved them. */
  changed: () => void;
}

export function RoleAttributesEditor({ entity, id, current, changed }: RoleAttributesEditorProps) {
  const draftKey = entity === 'identities' ? `identity-attributes-${id}` : `${entity}-attributes-${id}`;
  const [attributes, setAttributes, discard] = useDraft<string[]>(draftKey, () => current ?? []);
  const [error, setError] = useState<unknown>(undefined);
  const change = { roleAttributes: attributes };
  const differs = JSON.stringify(attributes) !== JSON.stringify(current ?? []);
  const state = useChangePreview({ entity, id, change, enabled: differs });
  return (
    <Form
      label={t.common.roleAttributes}
      submitLabel={differs ? saveLabel(t.common.save, state.preview) : t.common.save}
      error={error}
      setError={setError}
      fieldNames={['roleAttributes']}
      onSubmit={async () => {
        await api('PATCH', `/${entity}/${encodeURIComponent(id)}`, change);
        discard();
        changed();
      }}
    >
      <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={attributes} onInput={setAttributes} error={error} />
      {differs && <ChangePreview entity={entity} id={id} change={change} state={state} />}
    </Form>
  );
}
