/**
 * One identity: its facts; its role attributes, edited with the change preview (who gains and loses what) before
 * saving; its enrollment (JWT, QR code, download, re-issue); its authenticators (identity-authenticators.tsx); MFA
 * reset; its API sessions and sessions (identity-sessions.tsx); delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { useLiveStatus } from '../../api/events';
import { ConfirmButton, DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { Attributes, DateTime, YesNo } from '../../components/fields';
import { RoleAttributesEditor } from '../../components/role-attributes-editor';
import { navigate } from '../../router';
import { t } from '../../strings';
import { IdentityAuthenticators } from './identity-authenticators';
import { EnrollmentPanel, type PendingEnrollment } from './identity-enrollment';
import { IdentitySessions } from './identity-sessions';
import { liveIdentity } from './identity-list';
import { LiveNote, OnlineBadge } from '../edge-routers/router-list';

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

export function IdentityDetail({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const path = `/identities/${encodeURIComponent(id)}`;
  const { entity: identity, error, reload } = useEntity<Identity>(path);
  const [generation, setGeneration] = useState(0);
  const changed = () => (reload(), setGeneration((n) => n + 1));
  const live = useLiveStatus();
  // Changes missed while the stream was down are not replayed: the identity is read again when it comes back.
  useEffect(() => {
    if (live.reconnects > 0) reload();
  }, [live.reconnects]);
  const status = identity ? liveIdentity(live, identity) : undefined;
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
          <LiveNote live={live} />
          <Facts
            facts={[
              [t.common.id, identity.id],
              [t.common.type, identity.type?.name ?? t.common.none],
              [t.identities.isAdmin, <YesNo value={identity.isAdmin} />],
              [t.identities.authPolicy, identity.authPolicy?.name ?? t.common.none],
              [t.identities.status, <OnlineBadge online={status?.online ?? false} />],
              [t.identities.hasApiSession, <YesNo value={status?.hasApiSession} />],
              [t.identities.mfa, <YesNo value={identity.isMfaEnabled} />],
              [t.common.roleAttributes, <Attributes values={identity.roleAttributes} />],
              [t.common.createdAt, <DateTime value={identity.createdAt} />],
            ]}
          />
          <Section title={t.common.roleAttributes}>
            <RoleAttributesEditor entity="identities" id={identity.id} current={identity.roleAttributes} changed={changed} />
          </Section>
          <Section title={t.identities.enrollment}>
            <EnrollmentPanel identityId={identity.id} identityName={identity.name} method={pendingMethod} enrollment={pending} changed={changed} />
          </Section>
          <Section title={t.identities.authenticators}>
            <IdentityAuthenticators identityId={identity.id} reloadKey={generation} changed={changed} />
          </Section>
          <IdentitySessions identityId={identity.id} identityName={identity.name} />
        </>
      )}
    </DetailScreen>
  );
}
