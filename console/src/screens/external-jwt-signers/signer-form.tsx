/**
 * Creating and editing an external JWT signer (certificate or JWKS endpoint, issuer, audience, the claim naming the
 * identity), and on the edit page "check a token": the controller runs its login checks on a pasted JWT
 * (POST /external-jwt-signers/{id}/check) and says whether it would be accepted, and if not which check refused it.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ConfirmButton, Section, useEntity } from '../../components/detail';
import { CheckboxField, Form, TextField } from '../../components/form';
import { Problem } from '../../components/problem';
import { navigate } from '../../router';
import { t } from '../../strings';
import type { Signer } from './signer-list';

const NULLABLE = ['certPem', 'jwksEndpoint', 'kid', 'externalAuthUrl', 'clientId'] as const;

function draftOf(signer?: Signer) {
  return {
    name: signer?.name ?? '',
    issuer: signer?.issuer ?? '',
    audience: signer?.audience ?? '',
    enabled: signer?.enabled ?? true,
    certPem: signer?.certPem ?? '',
    jwksEndpoint: signer?.jwksEndpoint ?? '',
    kid: signer?.kid ?? '',
    claimsProperty: signer?.claimsProperty ?? 'sub',
    useExternalId: signer?.useExternalId ?? false,
    externalAuthUrl: signer?.externalAuthUrl ?? '',
    clientId: signer?.clientId ?? '',
  };
}
type Draft = ReturnType<typeof draftOf>;

/** The whole signer for POST or PUT: empty optional text is null (not given), not an empty string the API refuses. */
function bodyOf(draft: Draft): Record<string, unknown> {
  const body: Record<string, unknown> = { ...draft };
  for (const key of NULLABLE) body[key] = draft[key].trim() === '' ? null : draft[key];
  return body;
}

interface CheckAnswer {
  ok: boolean;
  check?: string;
  message: string;
}

function CheckToken({ signer }: { signer: Signer }) {
  const [token, setToken] = useState('');
  const [answer, setAnswer] = useState<CheckAnswer | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  return (
    <Section title={t.signers.check}>
      <p class="hint">{t.signers.checkHint}</p>
      <Form
        label={t.signers.check}
        submitLabel={t.signers.checkButton}
        error={error}
        setError={setError}
        fieldNames={['token']}
        onSubmit={async () => {
          setAnswer(undefined);
          setAnswer((await api<CheckAnswer>('POST', `/external-jwt-signers/${encodeURIComponent(signer.id)}/check`, { token: token.trim() })).data);
        }}
      >
        <TextField name="token" label={t.signers.token} multiline rows={4} value={token} onInput={setToken} error={error} required />
      </Form>
      {answer && (
        <p class={answer.ok ? 'ok' : 'problem'} role={answer.ok ? 'status' : 'alert'}>
          {answer.ok ? t.signers.accepted(answer.message) : t.signers.refused(answer.check ?? '', answer.message)}
        </p>
      )}
    </Section>
  );
}

function SignerForm({ signer }: { signer?: Signer }) {
  const [draft, setDraft, discard] = useDraft(`signer-${signer?.id ?? 'new'}`, () => draftOf(signer));
  const [error, setError] = useState<unknown>(undefined);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const title = signer ? t.signers.editTitle(signer.name) : t.signers.createTitle;
  const text = (name: keyof Draft & string, label: string, extra: { hint?: string; multiline?: boolean; required?: boolean } = {}) => (
    <TextField name={name} label={label} value={draft[name] as string} onInput={(value) => set({ [name]: value } as Partial<Draft>)} error={error} {...extra} />
  );
  return (
    <section aria-labelledby="form-title">
      <header class="screen-head">
        <h1 id="form-title">{title}</h1>
        {signer && (
          <ConfirmButton
            label={t.common.delete}
            question={t.signers.deleteQuestion}
            onConfirm={async () => (await api('DELETE', `/external-jwt-signers/${encodeURIComponent(signer.id)}`), discard(), navigate('/console/external-jwt-signers'))}
          />
        )}
      </header>
      <Form
        label={title}
        submitLabel={signer ? t.common.save : t.common.create}
        error={error}
        setError={setError}
        fieldNames={Object.keys(draft)}
        onCancel={() => (discard(), navigate('/console/external-jwt-signers'))}
        onSubmit={async () => {
          if (signer) await api('PUT', `/external-jwt-signers/${encodeURIComponent(signer.id)}`, bodyOf(draft));
          else await api('POST', '/external-jwt-signers', bodyOf(draft));
          discard();
          navigate('/console/external-jwt-signers');
        }}
      >
        {text('name', t.common.name, { required: true })}
        {text('issuer', t.signers.issuer, { required: true })}
        {text('audience', t.signers.audience, { required: true })}
        <CheckboxField name="enabled" label={t.signers.enabled} checked={draft.enabled} onChange={(enabled) => set({ enabled })} error={error} />
        {text('certPem', t.signers.certPem, { multiline: true, hint: t.signers.keyHint })}
        {text('jwksEndpoint', t.signers.jwksEndpoint)}
        {text('kid', t.signers.kid)}
        {text('claimsProperty', t.signers.claimsProperty)}
        <CheckboxField name="useExternalId" label={t.signers.useExternalId} checked={draft.useExternalId} onChange={(useExternalId) => set({ useExternalId })} error={error} />
        {text('externalAuthUrl', t.signers.externalAuthUrl)}
        {text('clientId', t.signers.clientId)}
      </Form>
      {signer && <CheckToken signer={signer} />}
    </section>
  );
}

export const SignerCreate = () => <SignerForm />;

export function SignerEdit({ params }: { params: Record<string, string> }) {
  const { entity, error } = useEntity<Signer>(`/external-jwt-signers/${encodeURIComponent(params.id!)}`);
  if (error !== undefined) return <Problem error={error} />;
  if (!entity) return <p role="status">{t.list.loading}</p>;
  return <SignerForm signer={entity} />;
}
