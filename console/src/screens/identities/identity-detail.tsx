/**
 * One identity: its facts; its role attributes, edited with the change preview (who gains and loses what) before
 * saving; its enrollment (JWT, QR code, download, re-issue); its authenticators (delete); MFA reset; its API
 * sessions and sessions, filtered by the API; disable/enable and delete.
 */
import { useState } from 'preact/hooks';
import { api, quoted } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ChangePreview, saveLabel, useChangePreview } from '../../components/change-preview';
import { ConfirmButton, DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { Attributes, DateTime, YesNo } from '../../components/fields';
import { AttributesField, Form } from '../../components/form';
import { ListScreen } from '../../components/list-screen';
import { navigate } from '../../router';
import { t } from '../../strings';
import { EnrollmentPanel, type PendingEnrollment } from './identity-enrollment';

interface Identity {
  id: string;
  name: string;
  type?: { name?: string } | null;
  isAdmin: boolean;
  disabled?: boolean;
  roleAttributes: string[] | null;
  authPolicy?: { name?: string } | null;
  hasApiSession: boolean;
  isMfaEnabled: boolean;
  enrollment: { ott?: PendingEnrollment; updb?: PendingEnrollment & { username: string }; ottca?: PendingEnrollment };
  createdAt: string;
}

interface AuthenticatorRow {
  id: string;
  method: string;
  username?: string | null;
  certFingerprint?: string | null;
  createdAt: string;
}

function RoleAttributes({ identity, changed }: { identity: Identity; changed: () => void }) {
  const [attributes, setAttributes, discard] = useDraft<string[]>(`identity-attributes-${identity.id}`, () => identity.roleAttributes ?? []);
  const [error, setError] = useState<unknown>(undefined);
  const change = { roleAttributes: attributes };
  const differs = JSON.stringify(attributes) !== JSON.stringify(identity.roleAttributes ?? []);
  const state = useChangePreview({ entity: 'identities', id: identity.id, change });
  return (
    <Form
      label={t.common.roleAttributes}
      submitLabel={differs ? saveLabel(t.common.save, state.preview) : t.common.save}
      error={error}
      setError={setError}
      fieldNames={['roleAttributes']}
      onSubmit={async () => {
        await api('PATCH', `/identities/${encodeURIComponent(identity.id)}`, change);
        discard();
        changed();
      }}
    >
      <AttributesField name="roleAttributes" label={t.common.roleAttributes} value={attributes} onInput={setAttributes} error={error} />
      {differs && <ChangePreview entity="identities" id={identity.id} change={change} state={state} />}
    </Form>
  );
}

export function IdentityDetail({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const path = `/identities/${encodeURIComponent(id)}`;
  const { entity: identity, error, reload } = useEntity<Identity>(path);
  const [generation, setGeneration] = useState(0);
  const changed = () => (reload(), setGeneration((n) => n + 1));
  const pendingMethod = identity?.enrollment.ott ? 'ott' : identity?.enrollment.updb ? 'updb' : identity?.enrollment.ottca ? 'ottca' : 'ott';
  const pending = identity?.enrollment.ott ?? identity?.enrollment.updb ?? identity?.enrollment.ottca;
  return (
    <DetailScreen
      title={identity?.name}
      error={error}
      actions={
        identity && (
          <>
            <a class="button" href={`/console/reach?identity=${encodeURIComponent(id)}`}>
              {t.identities.whyCant}
            </a>
            {identity.isMfaEnabled && (
              <ConfirmButton label={t.identities.resetMfa} question={t.identities.resetMfaQuestion(identity.name)} onConfirm={async () => (await api('DELETE', `${path}/mfa`), changed())} />
            )}
            <ConfirmButton label={t.common.delete} question={t.identities.deleteQuestion(identity.name)} onConfirm={async () => (await api('DELETE', path), navigate('/console/identities'))} />
          </>
        )
      }
    >
      {identity && (
        <>
          <Facts
            facts={[
              [t.common.id, identity.id],
              [t.common.type, identity.type?.name ?? t.common.none],
              [t.identities.isAdmin, <YesNo value={identity.isAdmin} />],
              [t.identities.authPolicy, identity.authPolicy?.name ?? t.common.none],
              [t.identities.hasApiSession, <YesNo value={identity.hasApiSession} />],
              [t.identities.mfa, <YesNo value={identity.isMfaEnabled} />],
              [t.common.roleAttributes, <Attributes values={identity.roleAttributes} />],
              [t.common.createdAt, <DateTime value={identity.createdAt} />],
            ]}
          />
          <Section title={t.common.roleAttributes}>
            <RoleAttributes identity={identity} changed={changed} />
          </Section>
          <Section title={t.identities.enrollment}>
            <EnrollmentPanel identityId={identity.id} identityName={identity.name} method={pendingMethod} enrollment={pending} changed={changed} />
          </Section>
          <Section title={t.identities.authenticators}>
            <ListScreen<AuthenticatorRow>
              reloadKey={generation}
              title={t.identities.authenticators}
              collection={`${path}/authenticators`}
              embedded
              defaultSort="createdAt asc"
              columns={[
                { key: 'method', label: t.identities.method, render: (row) => row.method },
                { key: 'detail', label: t.identities.credential, render: (row) => row.username ?? row.certFingerprint ?? t.common.none },
                { key: 'createdAt', label: t.common.createdAt, render: (row) => <DateTime value={row.createdAt} /> },
                {
                  key: 'delete',
                  label: t.common.actions,
                  render: (row) => (
                    <ConfirmButton label={t.common.delete} question={t.identities.deleteAuthenticatorQuestion(row.method)} onConfirm={async () => (await api('DELETE', `/authenticators/${encodeURIComponent(row.id)}`), changed())} />
                  ),
                },
              ]}
            />
          </Section>
          <Section title={t.nav.apiSessions}>
            <ListScreen<{ id: string; createdAt: string; lastActivityAt?: string; ipAddress?: string }>
              title={t.nav.apiSessions}
              collection="/api-sessions"
              embedded
              params={{ filter: `identityId = ${quoted(id)}` }}
              defaultSort="createdAt desc"
              columns={[
                { key: 'id', label: t.common.id, render: (row) => row.id },
                { key: 'ipAddress', label: t.identities.ipAddress, render: (row) => row.ipAddress ?? t.common.none },
                { key: 'createdAt', label: t.common.createdAt, render: (row) => <DateTime value={row.createdAt} /> },
              ]}
            />
          </Section>
        </>
      )}
    </DetailScreen>
  );
}
