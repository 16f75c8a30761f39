/**
 * Editing an auth policy: which primary logins it allows, the password rules and lockout, and whether TOTP is
 * required. Saved with PATCH of the changed settings, so what this form does not show (allowed CAs and signers)
 * stays as it is. Field names are the body's paths (primary.updb.minPasswordLength), which the API's refusals name.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { useEntity } from '../../components/detail';
import { CheckboxField, Form, TextField } from '../../components/form';
import { Problem } from '../../components/problem';
import { navigate } from '../../router';
import { t } from '../../strings';
import type { AuthPolicy } from './auth-policy-list';

function draftOf(policy: AuthPolicy) {
  const { cert, updb, extJwt } = policy.primary;
  return {
    name: policy.name,
    certAllowed: cert.allowed,
    allowExpiredCerts: cert.allowExpiredCerts,
    updbAllowed: updb.allowed,
    minPasswordLength: String(updb.minPasswordLength),
    maxAttempts: String(updb.maxAttempts),
    lockoutDurationMinutes: String(updb.lockoutDurationMinutes),
    extJwtAllowed: extJwt.allowed,
    requireTotp: policy.secondary.requireTotp,
  };
}
type Draft = ReturnType<typeof draftOf>;

const FIELDS = [
  'name',
  'primary.cert.allowed',
  'primary.cert.allowExpiredCerts',
  'primary.updb.allowed',
  'primary.updb.minPasswordLength',
  'primary.updb.maxAttempts',
  'primary.updb.lockoutDurationMinutes',
  'primary.extJwt.allowed',
  'secondary.requireTotp',
];

/** A number field's text as the API's integer; what is not a number goes as typed, for the API to name. */
const integer = (text: string) => (/^-?\d+$/.test(text.trim()) ? Number(text) : text);

function AuthPolicyForm({ policy }: { policy: AuthPolicy }) {
  const [draft, setDraft, discard] = useDraft(`auth-policy-${policy.id}`, () => draftOf(policy));
  const [error, setError] = useState<unknown>(undefined);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const title = t.authPolicies.editTitle(policy.name);
  const number = (name: 'minPasswordLength' | 'maxAttempts' | 'lockoutDurationMinutes', label: string) => (
    <TextField name={`primary.updb.${name}`} label={label} type="number" value={draft[name]} onInput={(value) => set({ [name]: value })} error={error} />
  );
  const check = (name: 'certAllowed' | 'allowExpiredCerts' | 'updbAllowed' | 'extJwtAllowed' | 'requireTotp', path: string, label: string) => (
    <CheckboxField name={path} label={label} checked={draft[name]} onChange={(value) => set({ [name]: value })} error={error} />
  );
  return (
    <section aria-labelledby="form-title">
      <h1 id="form-title">{title}</h1>
      <Form
        label={title}
        submitLabel={t.common.save}
        error={error}
        setError={setError}
        fieldNames={FIELDS}
        onCancel={() => (discard(), navigate('/console/auth-policies'))}
        onSubmit={async () => {
          await api('PATCH', `/auth-policies/${encodeURIComponent(policy.id)}`, {
            name: draft.name,
            primary: {
              cert: { allowed: draft.certAllowed, allowExpiredCerts: draft.allowExpiredCerts },
              updb: {
                allowed: draft.updbAllowed,
                minPasswordLength: integer(draft.minPasswordLength),
                maxAttempts: integer(draft.maxAttempts),
                lockoutDurationMinutes: integer(draft.lockoutDurationMinutes),
              },
              extJwt: { allowed: draft.extJwtAllowed },
            },
            secondary: { requireTotp: draft.requireTotp },
          });
          discard();
          navigate('/console/auth-policies');
        }}
      >
        <TextField name="name" label={t.common.name} value={draft.name} onInput={(name) => set({ name })} error={error} required />
        <fieldset>
          <legend>{t.authPolicies.primary}</legend>
          {check('certAllowed', 'primary.cert.allowed', t.authPolicies.certAllowed)}
          {check('allowExpiredCerts', 'primary.cert.allowExpiredCerts', t.authPolicies.allowExpiredCerts)}
          {check('updbAllowed', 'primary.updb.allowed', t.authPolicies.updbAllowed)}
          {number('minPasswordLength', t.authPolicies.minPasswordLength)}
          {number('maxAttempts', t.authPolicies.maxAttempts)}
          {number('lockoutDurationMinutes', t.authPolicies.lockoutDurationMinutes)}
          {check('extJwtAllowed', 'primary.extJwt.allowed', t.authPolicies.extJwtAllowed)}
        </fieldset>
        <fieldset>
          <legend>{t.authPolicies.secondary}</legend>
          {check('requireTotp', 'secondary.requireTotp', t.authPolicies.requireTotp)}
        </fieldset>
      </Form>
    </section>
  );
}

export function AuthPolicyEdit({ params }: { params: Record<string, string> }) {
  const { entity, error } = useEntity<AuthPolicy>(`/auth-policies/${encodeURIComponent(params.id!)}`);
  if (error !== undefined) return <Problem error={error} />;
  if (!entity) return <p role="status">{t.list.loading}</p>;
  return <AuthPolicyForm policy={entity} />;
}
