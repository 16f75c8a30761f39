/**
 * An identity's pending enrollment: the one-time JWT to hand over, as text, as a file to download and as a QR code
 * (made in the browser from the JWT, shown as a data: image the CSP allows), and re-issue: a new token and expiry
 * (the old JWT stops working), or a new enrollment when none is pending.
 */
import { toString as qrSvg } from 'qrcode';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/detail';
import { DateTime } from '../../components/fields';
import { Problem } from '../../components/problem';
import { t } from '../../strings';

export interface PendingEnrollment {
  id: string;
  jwt: string;
  expiresAt: string;
}

/** Days a re-issued or new enrollment lasts. */
const LIFETIME_MS = 3 * 86_400_000;

/** When an enrollment issued now ends. */
export const enrollmentExpiry = () => new Date(Date.now() + LIFETIME_MS).toISOString();

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/jwt' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

export function EnrollmentPanel(props: { identityId: string; identityName: string; method: string; enrollment: PendingEnrollment | undefined; changed: () => void }) {
  const [qr, setQr] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const { enrollment } = props;
  useEffect(() => {
    setQr(undefined);
    if (!enrollment) return;
    qrSvg(enrollment.jwt, { type: 'svg', errorCorrectionLevel: 'L', margin: 2 })
      .then((svg) => setQr(`data:image/svg+xml;base64,${btoa(svg)}`))
      .catch(setError);
  }, [enrollment?.jwt]);
  const reissue = async () => {
    if (enrollment) await api('POST', `/enrollments/${encodeURIComponent(enrollment.id)}/refresh`, { expiresAt: enrollmentExpiry() });
    else await api('POST', '/enrollments', { identityId: props.identityId, method: props.method, expiresAt: enrollmentExpiry() });
    props.changed();
  };
  if (!enrollment) {
    return (
      <div>
        <p>{t.identities.noEnrollment}</p>
        <ConfirmButton label={t.identities.newEnrollment} question={t.identities.newEnrollmentQuestion} danger={false} onConfirm={reissue} />
      </div>
    );
  }
  return (
    <div class="enrollment">
      <div class="field">
        <label for="identity-jwt">{t.identities.enrollmentJwt}</label>
        <textarea id="identity-jwt" readOnly rows={5} value={enrollment.jwt} aria-describedby="identity-jwt-hint" />
        <span class="hint" id="identity-jwt-hint">
          {t.identities.enrollmentExpires} <DateTime value={enrollment.expiresAt} />
        </span>
      </div>
      {qr && <img class="qr" src={qr} alt={t.identities.qrAlt(props.identityName)} width={220} height={220} />}
      <div class="actions">
        <button type="button" onClick={() => download(`${props.identityName}.jwt`, enrollment.jwt)}>
          {t.identities.downloadJwt}
        </button>
        <ConfirmButton label={t.identities.reissue} question={t.identities.reissueQuestion} danger={false} onConfirm={reissue} />
      </div>
      <Problem error={error} />
    </div>
  );
}
