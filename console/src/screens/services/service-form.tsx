/**
 * A service, new or edited: name, role attributes, end-to-end encryption (chosen at create; the API refuses a change
 * later), terminator strategy, and its configs picked by name (found by the API's name search, never by loading
 * every config). Kept as a draft while typed; the API's refusal shows at the field it names (`configs` when two
 * configs share a type, `terminatorStrategy`, …).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, get, query } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ChangePreview, saveLabel, useChangePreview } from '../../components/change-preview';
import { DetailScreen, useEntity } from '../../components/detail';
import { EntitySearch, type Named } from '../../components/entity-search';
import { AttributesField, CheckboxField, fieldError, Form, SelectField, TextField } from '../../components/form';
import { navigate } from '../../router';
import { t } from '../../strings';
import type { ServiceRow } from './service-list';

const STRATEGIES = ['smartrouting', 'weighted', 'random', 'ha'];

interface Draft {
  name: string;
  roleAttributes: string[];
  encryptionRequired: boolean;
  terminatorStrategy: string;
  configs: Named[];
}

function ConfigPicker(props: { configs: Named[]; error: unknown; onChange: (configs: Named[]) => void }) {
  const problem = fieldError(props.error, 'configs');
  return (
    <fieldset class={problem ? 'role-picker invalid' : 'role-picker'}>
      <legend>{t.services.configs}</legend>
      {problem && (
        <p class="field-problem" role="alert" id="problem-configs">
          {problem}
        </p>
      )}
      {props.configs.length === 0 ? (
        <p>{t.services.noConfigs}</p>
      ) : (
        <ul class="chips" aria-label={t.services.configs}>
          {props.configs.map((config) => (
            <li key={config.id}>
              {config.name}
              <button type="button" class="chip-remove" aria-label={t.services.removeConfig(config.name)} onClick={() => props.onChange(props.configs.filter((c) => c.id !== config.id))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <EntitySearch
        id="service-config-find"
        label={t.services.findConfig}
        collection="/configs"
        resultsLabel={t.services.configResults}
        pickLabel={t.services.addConfig}
        onPick={(config) => props.configs.some((c) => c.id === config.id) || props.onChange([...props.configs, { id: config.id, name: config.name }])}
      />
    </fieldset>
  );
}

function ServiceEditor({ service, configs }: { service?: ServiceRow; configs: Named[] }) {
  const [draft, setDraft, discard] = useDraft<Draft>(`service-${service?.id ?? 'new'}`, () => ({
    name: service?.name ?? '',
    roleAttributes: service?.roleAttributes ?? [],
    encryptionRequired: service?.encryptionRequired ?? true,
    terminatorStrategy: service?.terminatorStrategy ?? 'smartrouting',
    configs,
  }));
  const [error, setError] = useState<unknown>(undefined);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const title = service ? t.services.editTitle(service.name) : t.services.createTitle;
  const back = service ? `/console/services/${encodeURIComponent(service.id)}` : '/console/services';
  // New role attributes of a service move access: who gains and loses it is shown before the save.
  const attributesChanged = service !== undefined && JSON.stringify(draft.roleAttributes) !== JSON.stringify(service.roleAttributes ?? []);
  const preview = useChangePreview({ entity: 'services', id: service?.id, change: { roleAttributes: draft.roleAttributes }, enabled: attributesChanged });
  return (
    <section class="detail" aria-labelledby="form-title">
      <header class="screen-head">
        <h1 id="form-title">{title}</h1>
      </header>
      <Form
        label={title}
        submitLabel={!service ? t.common.create : attributesChanged ? saveLabel(t.common.save, preview.preview) : t.common.save}
        error={error}
        setError={setError}
        fieldNames={['name', 'roleAttributes', 'encryptionRequired', 'terminatorStrategy', 'configs']}
        onCancel={() => (discard(), navigate(back))}
        onSubmit={async () => {
          const body = { name: draft.name, roleAttributes: draft.roleAttributes, terminatorStrategy: draft.terminatorStrategy, configs: draft.configs.map((config) => config.id) };
          const id = service
            ? (await api('PATCH', `/services/${encodeURIComponent(service.id)}`, body), service.id)
            : (await api<{ id: string }>('POST', '/services', { ...body, encryptionRequired: draft.encryptionRequired })).data.id;
          discard();
          navigate(`/console/services/${encodeURIComponent(id)}`);
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={draft.roleAttributes} onInput={(roleAttributes) => set({ roleAttributes })} error={error} />
        {attributesChanged && <ChangePreview entity="services" id={service.id} change={{ roleAttributes: draft.roleAttributes }} state={preview} />}
        {!service && (
          <CheckboxField name="encryptionRequired" label={t.services.encryption} hint={t.services.encryptionHint} checked={draft.encryptionRequired} onChange={(encryptionRequired) => set({ encryptionRequired })} error={error} />
        )}
        <SelectField
          name="terminatorStrategy"
          label={t.services.strategy}
          hint={t.services.strategyHint}
          value={draft.terminatorStrategy}
          options={(STRATEGIES.includes(draft.terminatorStrategy) ? STRATEGIES : [draft.terminatorStrategy, ...STRATEGIES]).map((value) => ({ value, label: t.services.strategies[value] ?? value }))}
          onChange={(terminatorStrategy) => set({ terminatorStrategy })}
          error={error}
        />
        <ConfigPicker configs={draft.configs} error={error} onChange={(picked) => set({ configs: picked })} />
      </Form>
    </section>
  );
}

export function ServiceCreate() {
  return <ServiceEditor configs={[]} />;
}

export function ServiceEdit({ params }: { params: Record<string, string> }) {
  const path = `/services/${encodeURIComponent(params.id!)}`;
  const { entity, error } = useEntity<ServiceRow>(path);
  // The names of its configs: at most one per config type, so one page holds them.
  const [configs, setConfigs] = useState<Named[] | undefined>(undefined);
  const [configError, setConfigError] = useState<unknown>(undefined);
  useEffect(() => {
    get<Named[]>(`${path}/configs${query({ sort: 'name asc', limit: 100 })}`)
      .then((answer) => setConfigs(answer.data.map(({ id, name }) => ({ id, name }))))
      .catch(setConfigError);
  }, [path]);
  const problem = error ?? configError;
  if (problem !== undefined || entity === undefined || configs === undefined) return <DetailScreen title={undefined} error={problem} />;
  return <ServiceEditor key={entity.id} service={entity} configs={configs} />;
}
