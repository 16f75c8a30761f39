/**
 * A config, new or edited: its name, its type (chosen from the API's config types, searched by the list), and its data
 * drawn from the type's JSON Schema (components/schema-form.tsx), or as JSON text when the schema cannot be drawn.
 * The API's refusal shows at the field it names (`data.port`); nothing is saved until it accepts. Drafts survive a
 * reload or an ended session.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ConfirmButton, useEntity } from '../../components/detail';
import { Form, SelectField, TextField } from '../../components/form';
import { Problem } from '../../components/problem';
import { drawable, SchemaForm, type JsonSchema } from '../../components/schema-form';
import { navigate } from '../../router';
import { t } from '../../strings';

interface ConfigType {
  id: string;
  name: string;
  schema: JsonSchema;
}
interface Config {
  id: string;
  name: string;
  configTypeId: string;
  data: Record<string, unknown>;
}

function ConfigEditor({ config }: { config?: Config }) {
  const key = config ? `config-${config.id}` : 'config-new';
  const [draft, setDraft, discard] = useDraft(key, () => ({ name: config?.name ?? '', configTypeId: config?.configTypeId ?? '', data: config?.data ?? {} }));
  const [types, setTypes] = useState<ConfigType[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [json, setJson] = useState(JSON.stringify(draft.data, null, 2));
  useEffect(() => {
    get<ConfigType[]>('/config-types?limit=100&sort=name%20asc')
      .then((answer) => setTypes(answer.data))
      .catch(setError);
  }, []);
  const type = types.find((candidate) => candidate.id === draft.configTypeId);
  const save = async () => {
    const body = { name: draft.name, configTypeId: draft.configTypeId, data: draft.data };
    if (config) await api('PATCH', `/configs/${encodeURIComponent(config.id)}`, { name: body.name, data: body.data });
    else await api('POST', '/configs', body);
    discard();
    navigate('/console/configs');
  };
  return (
    <Form
      label={config ? t.configs.edit : t.configs.create}
      submitLabel={t.common.save}
      error={error}
      setError={setError}
      fieldNames={['name', 'configTypeId', 'data', ...Object.keys(type?.schema.properties ?? {}).map((k) => `data.${k}`)]}
      onSubmit={save}
      onCancel={() => (discard(), navigate('/console/configs'))}
    >
      <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => setDraft({ ...draft, name })} error={error} required />
      <SelectField
        name="configTypeId"
        label={t.common.type}
        value={draft.configTypeId}
        options={[{ value: '', label: t.configs.pickType }, ...types.map((candidate) => ({ value: candidate.id, label: candidate.name }))]}
        onChange={(configTypeId) => setDraft({ ...draft, configTypeId, data: config ? draft.data : {} })}
        error={error}
      />
      {type && drawable(type.schema) ? (
        <SchemaForm schema={type.schema} data={draft.data} onChange={(data) => setDraft({ ...draft, data })} error={error} />
      ) : (
        <TextField
          name="data"
          label={t.configs.data}
          multiline
          value={json}
          error={error}
          hint={t.configs.jsonHint}
          onInput={(text) => {
            setJson(text);
            try {
              setDraft({ ...draft, data: JSON.parse(text) as Record<string, unknown> });
            } catch {
              // kept as typed; the API names what is wrong when it is saved
            }
          }}
        />
      )}
    </Form>
  );
}

export function ConfigCreate() {
  return (
    <section aria-labelledby="config-title">
      <h1 id="config-title">{t.configs.create}</h1>
      <ConfigEditor />
    </section>
  );
}

export function ConfigEdit({ params }: { params: Record<string, string> }) {
  const path = `/configs/${encodeURIComponent(params.id!)}`;
  const { entity, error } = useEntity<Config>(path);
  if (error) return <Problem error={error} />;
  if (!entity) return <p role="status">{t.list.loading}</p>;
  return (
    <section aria-labelledby="config-title">
      <header class="screen-head">
        <h1 id="config-title">{entity.name}</h1>
        <ConfirmButton label={t.common.delete} question={t.configs.deleteQuestion(entity.name)} onConfirm={async () => (await api('DELETE', path), navigate('/console/configs'))} />
      </header>
      <ConfigEditor config={entity} />
    </section>
  );
}
