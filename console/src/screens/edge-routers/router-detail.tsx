/**
 * One edge router: its settings, its live status and version, its role attributes (edited with the change preview:
 * which identities gain or lose the router, which services gain their first or lose their last), and its
 * enrollment: the one-time JWT while one is pending (to hand to the router), re-enrollment (a new JWT; the old
 * certificate stops working), and delete.
 */
import { useEffect } from 'preact/hooks';
import { api } from '../../api/client';
import { useLiveStatus } from '../../api/events';
import { ConfirmButton, DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { Attributes, DateTime, YesNo } from '../../components/fields';
import { RoleAttributesEditor } from '../../components/role-attributes-editor';
import { navigate } from '../../router';
import { t } from '../../strings';
import { LiveNote, liveRouter, OnlineBadge, type EdgeRouterRow } from './router-list';

interface EdgeRouter extends EdgeRouterRow {
  isTunnelerEnabled: boolean;
  cost: number;
  noTraversal: boolean;
  disabled: boolean;
  fingerprint: string | null;
  enrollmentJwt?: string | null;
  enrollmentExpiresAt?: string | null;
  createdAt: string;
}

/** A one-time token shown read-only, selectable, with what to do with it. */
export function EnrollmentJwt({ jwt, expiresAt }: { jwt: string; expiresAt?: string | null }) {
  return (
    <div class="field">
      <label for="enrollment-jwt">{t.edgeRouters.enrollmentJwt}</label>
      <textarea id="enrollment-jwt" readOnly rows={5} value={jwt} aria-describedby="enrollment-jwt-hint" />
      <span class="hint" id="enrollment-jwt-hint">
        {t.edgeRouters.enrollmentHint} {t.edgeRouters.enrollmentExpires}: <DateTime value={expiresAt} />
      </span>
    </div>
  );
}

export function EdgeRouterDetail({ params }: { params: Record<string, string> }) {
  const path = `/edge-routers/${encodeURIComponent(params.id!)}`;
  const { entity: router, error, reload } = useEntity<EdgeRouter>(path);
  const live = useLiveStatus();
  // After the stream dropped and came back, what it missed is read again.
  useEffect(() => {
    if (live.reconnects > 0) reload();
  }, [live.reconnects]);
  const status = router ? liveRouter(live, router) : undefined;
  return (
    <DetailScreen
      title={router?.name}
      error={error}
      actions={
        <>
          <ConfirmButton label={t.edgeRouters.reEnroll} question={t.edgeRouters.reEnrollQuestion} danger={false} onConfirm={async () => (await api('POST', `${path}/re-enroll`), reload())} />
          <ConfirmButton label={t.common.delete} question={t.edgeRouters.deleteQuestion} onConfirm={async () => (await api('DELETE', path), navigate('/console/edge-routers'))} />
        </>
      }
    >
      {router && status && (
        <>
          <LiveNote live={live} />
          <Facts
            facts={[
              [t.common.id, router.id],
              [t.edgeRouters.status, <OnlineBadge online={status.isOnline} />],
              [t.edgeRouters.version, status.version || t.common.none],
              [t.edgeRouters.hostname, router.hostname || t.common.none],
              [t.edgeRouters.verified, <YesNo value={router.isVerified} />],
              [t.edgeRouters.fingerprint, router.fingerprint ?? t.common.none],
              [t.common.roleAttributes, <Attributes values={router.roleAttributes} />],
              [t.edgeRouters.tunneler, <YesNo value={router.isTunnelerEnabled} />],
              [t.edgeRouters.cost, String(router.cost)],
              [t.edgeRouters.disabled, <YesNo value={router.disabled} />],
              [t.common.createdAt, <DateTime value={router.createdAt} />],
            ]}
          />
          <Section title={t.common.roleAttributes}>
            <RoleAttributesEditor entity="edge-routers" id={router.id} current={router.roleAttributes} changed={reload} />
          </Section>
          <Section title={t.edgeRouters.enrollment}>
            {router.enrollmentJwt ? <EnrollmentJwt jwt={router.enrollmentJwt} expiresAt={router.enrollmentExpiresAt} /> : <p>{t.edgeRouters.noEnrollment}</p>}
          </Section>
        </>
      )}
    </DetailScreen>
  );
}
