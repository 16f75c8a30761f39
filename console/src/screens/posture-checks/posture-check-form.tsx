/**
 * Creating and editing a posture check of the common types (operating system, MAC address, Windows domain, process,
 * MFA): the fields of the chosen type only, the change preview (which identity–service pairs the save would block or
 * unblock) before saving, the API's refusal shown at its field, and delete on the edit page, previewed the same way.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ChangePreview, saveLabel, useChangePreview } from '../../components/change-preview';
import { DeleteReview } from '../../components/delete-review';
import { useEntity } from '../../components/detail';
import { AttributesField, CheckboxField, Form, SelectField, TextField } from '../../components/form';
import { Problem } from '../../components/problem';
import { navigate } from '../../router';
import { t } from '../../strings';

export interface PostureCheck {
  id: string;
  name: string;
  typeId: string;
  roleAttributes?: string[];
  operatingSystems?: { type: string; versions?: string[] }[];
  macAddresses?: string[];
  domains?: string[];
  process?: { osType: string; path: string; hashes?: string[] };
  processes?: { osType: string; path: string }[];
  timeoutSeconds?: number;
  promptOnWake?: boolean;
  promptOnUnlock?: boolean;
}

const TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'MFA'];
const OSES = ['Windows', 'WindowsServer', 'Linux', 'macOS', 'Android', 'iOS'];

const list = (text: string) => text.split(',').map((part) => part.trim()).filter(Boolean);

interface Draft {
  name: string;
  typeId: string;
  roleAttributes: string[];
  os: string;
  versions: string;
  macAddresses: string;
  domains: string;
  processOs: string;
  processPath: string;
  processHashes: string;
  timeoutSeconds: string;
  promptOnWake: boolean;
  promptOnUnlock: boolean;
}

function draftOf(check?: PostureCheck): Draft {
  const os = check?.operatingSystems?.[0];
  return {
    name: check?.name ?? '',
    typeId: check?.typeId ?? 'OS',
    roleAttributes: check?.roleAttributes ?? [],
    os: os?.type ?? 'Windows',
    versions: (os?.versions ?? []).join(', '),
    macAddresses: (check?.macAddresses ?? []).join(', '),
    domains: (check?.domains ?? []).join(', '),
    processOs: check?.process?.osType ?? 'Windows',
    processPath: check?.process?.path ?? '',
    processHashes: (check?.process?.hashes ?? []).join(', '),
    timeoutSeconds: check?.timeoutSeconds === undefined ? '' : String(check.timeoutSeconds),
    promptOnWake: check?.promptOnWake ?? false,
    promptOnUnlock: check?.promptOnUnlock ?? false,
  };
}

/** The body the API takes for the draft's type (PUT and POST take the whole check). */
function bodyOf(draft: Draft): Record<string, unknown> {
  const common = { name: draft.name, typeId: draft.typeId, roleAttributes: draft.roleAttributes };
  switch (draft.typeId) {
    case 'OS':
      return { ...common, operatingSystems: [{ type: draft.os, versions: list(draft.versions) }] };
    case 'MAC':
      return { ...common, macAddresses: list(draft.macAddresses) };
    case 'DOMAIN':
      return { ...common, domains: list(draft.domains) };
    case 'PROCESS':
      return { ...common, process: { osType: draft.processOs, path: draft.processPath, hashes: list(draft.processHashes) } };
    default:
      return {
        ...common,
        timeoutSeconds: draft.timeoutSeconds.trim() === '' ? null : Number(draft.timeoutSeconds),
        promptOnWake: draft.promptOnWake,
        promptOnUnlock: draft.promptOnUnlock,
      };
  }
}

function PostureCheckForm({ check }: { check?: PostureCheck }) {
  const [draft, setDraft, discard] = useDraft(`posture-check-${check?.id ?? 'new'}`, () => draftOf(check));
  const [error, setError] = useState<unknown>(undefined);
  // Delete first previews the pairs it would unblock (decision 0082), like a policy's delete.
  const [deleting, setDeleting] = useState(false);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const title = check ? t.postureChecks.editTitle(check.name) : t.postureChecks.createTitle;
  const osOptions = OSES.map((os) => ({ value: os, label: os }));
  // Which identity–service pairs the save would block or unblock, on the identities' current posture data.
  const body = bodyOf(draft);
  const named = draft.name.trim() !== '';
  const preview = useChangePreview({ entity: 'posture-checks', id: check?.id, change: body, enabled: named });
  return (
    <section aria-labelledby="form-title">
      <header class="screen-head">
        <h1 id="form-title">{title}</h1>
        {check && (
          <button type="button" class="danger" onClick={() => setDeleting(true)} disabled={deleting}>
            {t.common.delete}
          </button>
        )}
      </header>
      {check && deleting && (
        <DeleteReview
          entity="posture-checks"
          id={check.id}
          question={t.postureChecks.deleteQuestion}
          onDeleted={() => (discard(), navigate('/console/posture-checks'))}
          onCancel={() => setDeleting(false)}
        />
      )}
      <Form
        label={title}
        submitLabel={saveLabel(check ? t.common.save : t.common.create, preview.preview)}
        error={error}
        setError={setError}
        fieldNames={['name', 'typeId', 'roleAttributes', 'operatingSystems', 'macAddresses', 'domains', 'process.osType', 'process.path', 'process.hashes', 'timeoutSeconds', 'promptOnWake', 'promptOnUnlock']}
        onCancel={() => (discard(), navigate('/console/posture-checks'))}
        onSubmit={async () => {
          if (check) await api('PUT', `/posture-checks/${encodeURIComponent(check.id)}`, body);
          else await api('POST', '/posture-checks', body);
          discard();
          navigate('/console/posture-checks');
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <SelectField name="typeId" label={t.postureChecks.typeId} value={draft.typeId} options={TYPES.map((id) => ({ value: id, label: t.postureChecks.types[id]! }))} onChange={(typeId) => set({ typeId })} error={error} />
        <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={draft.roleAttributes} onInput={(roleAttributes) => set({ roleAttributes })} error={error} />
        {draft.typeId === 'OS' && (
          <>
            <SelectField name="operatingSystems" label={t.postureChecks.operatingSystem} value={draft.os} options={osOptions} onChange={(os) => set({ os })} error={error} />
            <TextField name="versions" label={t.postureChecks.versions} hint={t.postureChecks.versionsHint} value={draft.versions} onInput={(versions) => set({ versions })} error={error} />
          </>
        )}
        {draft.typeId === 'MAC' && (
          <TextField name="macAddresses" label={t.postureChecks.macAddresses} hint={t.postureChecks.listHint} value={draft.macAddresses} onInput={(macAddresses) => set({ macAddresses })} error={error} />
        )}
        {draft.typeId === 'DOMAIN' && <TextField name="domains" label={t.postureChecks.domains} hint={t.postureChecks.listHint} value={draft.domains} onInput={(domains) => set({ domains })} error={error} />}
        {draft.typeId === 'PROCESS' && (
          <>
            <SelectField name="process.osType" label={t.postureChecks.processOs} value={draft.processOs} options={osOptions} onChange={(processOs) => set({ processOs })} error={error} />
            <TextField name="process.path" label={t.postureChecks.processPath} value={draft.processPath} onInput={(processPath) => set({ processPath })} error={error} />
            <TextField name="process.hashes" label={t.postureChecks.processHashes} hint={t.postureChecks.listHint} value={draft.processHashes} onInput={(processHashes) => set({ processHashes })} error={error} />
          </>
        )}
        {draft.typeId === 'MFA' && (
          <>
            <TextField name="timeoutSeconds" label={t.postureChecks.timeoutSeconds} hint={t.postureChecks.timeoutHint} type="number" value={draft.timeoutSeconds} onInput={(timeoutSeconds) => set({ timeoutSeconds })} error={error} />
            <CheckboxField name="promptOnWake" label={t.postureChecks.promptOnWake} checked={draft.promptOnWake} onChange={(promptOnWake) => set({ promptOnWake })} error={error} />
            <CheckboxField name="promptOnUnlock" label={t.postureChecks.promptOnUnlock} checked={draft.promptOnUnlock} onChange={(promptOnUnlock) => set({ promptOnUnlock })} error={error} />
          </>
        )}
        {named && <ChangePreview entity="posture-checks" id={check?.id} change={body} state={preview} />}
      </Form>
    </section>
  );
}

export const PostureCheckCreate = () => <PostureCheckForm />;

export function PostureCheckEdit({ params }: { params: Record<string, string> }) {
  const { entity, error } = useEntity<PostureCheck>(`/posture-checks/${encodeURIComponent(params.id!)}`);
  if (error !== undefined) return <Problem error={error} />;
  if (!entity) return <p role="status">{t.list.loading}</p>;
  return <PostureCheckForm check={entity} />;
}
