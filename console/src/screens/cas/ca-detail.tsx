/**
 * One CA: its settings and its verification. An unverified CA shows the token a verification certificate must carry
 * as its common name and takes that certificate (PEM, sent as the text body the API wants); the API's refusal (wrong
 * signer, wrong name, not PEM) is shown at the field and nothing changes.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, TextBody } from '../../api/client';
import { useDraft } from '../../api/drafts';
import { ConfirmButton, DetailScreen, Facts, Section, useEntity } from '../../components/detail';
import { Attributes, DateTime, YesNo } from '../../components/fields';
import { Form, TextField } from '../../components/form';
import { navigate } from '../../router';
import { t } from '../../strings';
import type { Ca } from './ca-list';

function Verification({ ca, onVerified }: { ca: Ca; onVerified: () => void }) {
  const [pem, setPem, discard] = useDraft(`ca-verify-${ca.id}`, () => '');
  const [error, setError] = useState<unknown>(undefined);
  return (
    <>
      <Facts facts={[[t.cas.verificationToken, <code>{ca.verificationToken}</code>]]} />
      <Form
        label={t.cas.verification}
        submitLabel={t.cas.verify}
        error={error}
        setError={setError}
        fieldNames={['certificate']}
        onSubmit={async () => {
          try {
            await api('POST', `/cas/${encodeURIComponent(ca.id)}/verify`, new TextBody(pem));
          } catch (problem) {
            // The body is the certificate itself: whatever the API refuses in it belongs at this one field.
            throw problem instanceof ApiError ? new ApiError(problem.status, problem.code, problem.message, 'certificate', problem.cause) : problem;
          }
          discard();
          onVerified();
        }}
      >
        <TextField name="certificate" label={t.cas.verificationCert} hint={t.cas.verificationHint} multiline value={pem} onInput={setPem} error={error} required />
      </Form>
    </>
  );
}

export function CaDetail({ params }: { params: Record<string, string> }) {
  const path = `/cas/${encodeURIComponent(params.id!)}`;
  const { entity: ca, error, reload } = useEntity<Ca>(path);
  return (
    <DetailScreen
      title={ca?.name}
      error={error}
      actions={<ConfirmButton label={t.common.delete} question={t.cas.deleteQuestion} onConfirm={async () => (await api('DELETE', path), navigate('/console/cas'))} />}
    >
      {ca && (
        <>
          <Facts
            facts={[
              [t.common.id, ca.id],
              [t.cas.verified, <YesNo value={ca.isVerified} />],
              [t.cas.fingerprint, ca.fingerprint],
              [t.cas.authEnabled, <YesNo value={ca.isAuthEnabled} />],
              [t.cas.autoEnrollment, <YesNo value={ca.isAutoCaEnrollmentEnabled} />],
              [t.cas.ottCaEnrollment, <YesNo value={ca.isOttCaEnrollmentEnabled} />],
              [t.cas.identityRoles, <Attributes values={ca.identityRoles} />],
              [t.cas.identityNameFormat, ca.identityNameFormat],
              [t.common.createdAt, <DateTime value={ca.createdAt} />],
            ]}
          />
          <Section title={t.cas.verification}>{ca.isVerified ? <p class="ok">{t.cas.alreadyVerified}</p> : <Verification ca={ca} onVerified={reload} />}</Section>
        </>
      )}
    </DetailScreen>
  );
}
