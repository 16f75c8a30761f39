/**
 * Who gains and who loses access if a change is saved: the API's answer to `POST /change-previews` (nothing is
 * saved by asking), shown as two counted tables of the first items. Policy screens show it before create, edit and
 * delete; the identity, service and edge router screens before role attributes are saved; the posture check form
 * before a check is saved or deleted (deletes through `DeleteReview`). `useChangePreview` gives the answer to the
 * caller too, so its save button can say what it will do (`saveLabel`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import { t } from '../strings';
import { Problem } from './problem';

export type PreviewEntity = 'service-policies' | 'edge-router-policies' | 'service-edge-router-policies' | 'identities' | 'services' | 'edge-routers' | 'posture-checks';

interface Ref {
  id: string;
  name: string;
}

export interface AccessItem {
  identity?: Ref;
  service?: Ref;
  edgeRouter?: Ref;
  permission?: 'dial' | 'bind';
}

export interface Access {
  count: number;
  countIsLowerBound?: boolean;
  items: AccessItem[];
}

export interface Preview {
  gains: Access;
  losses: Access;
}

export interface ChangePreviewProps {
  entity: PreviewEntity;
  /** Absent: the change creates an entity. */
  id?: string;
  /** The POST or PATCH body the save would send. */
  change: object;
  delete?: boolean;
  /** False: ask nothing (the form has no change to preview yet); the answer stays undefined. */
  enabled?: boolean;
}

/** The preview of a change, asked again whenever the change differs. */
export function useChangePreview(props: ChangePreviewProps): { preview: Preview | undefined; error: unknown } {
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const enabled = props.enabled ?? true;
  const body = JSON.stringify({ entity: props.entity, ...(props.id ? { id: props.id } : {}), ...(props.delete ? { delete: true } : {}), change: props.change });
  useEffect(() => {
    setPreview(undefined);
    setError(undefined);
    if (!enabled) return undefined;
    const abort = new AbortController();
    api<Preview>('POST', '/change-previews', JSON.parse(body), abort.signal)
      .then((answer) => setPreview(answer.data))
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [body, enabled]);
  return { preview, error };
}

const countText = (access: Access) => t.preview.count(access.count, access.countIsLowerBound);

/** "Create: 3 gain, 0 lose access" for a save button, once the preview has answered. */
export const saveLabel = (verb: string, preview: Preview | undefined) => (preview ? t.preview.saveLabel(verb, countText(preview.gains), countText(preview.losses)) : verb);

function AccessTable({ caption, access }: { caption: string; access: Access }) {
  const has = (key: keyof AccessItem) => access.items.some((item) => item[key] !== undefined);
  const columns = (
    [
      ['identity', t.preview.identity],
      ['service', t.preview.service],
      ['edgeRouter', t.preview.edgeRouter],
      ['permission', t.preview.permission],
    ] as const
  ).filter(([key]) => has(key));
  return (
    <section class="access" aria-label={caption}>
      <h3>{caption}</h3>
      {access.count > 0 && access.items.length > 0 && (
        <table class="list">
          <caption>{t.preview.shown(access.items.length, countText(access))}</caption>
          <thead>
            <tr>
              {columns.map(([key, label]) => (
                <th scope="col" key={key}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {access.items.map((item, index) => (
              <tr key={index}>
                {columns.map(([key]) => {
                  const value = item[key];
                  return <td key={key}>{value === undefined ? t.common.none : typeof value === 'string' ? value : value.name}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The preview as the user sees it; pass `state` when the caller already holds `useChangePreview`'s answer. */
export function ChangePreview(props: ChangePreviewProps & { state?: { preview: Preview | undefined; error: unknown } }) {
  return props.state ? <PreviewView {...props.state} /> : <OwnPreview {...props} />;
}

function OwnPreview(props: ChangePreviewProps) {
  return <PreviewView {...useChangePreview(props)} />;
}

function PreviewView({ preview, error }: { preview: Preview | undefined; error: unknown }) {
  return (
    <section class="change-preview" aria-labelledby="change-preview-title" aria-live="polite">
      <h2 id="change-preview-title">{t.preview.title}</h2>
      {error !== undefined ? (
        <Problem error={error} prefix={t.preview.failed} />
      ) : preview === undefined ? (
        <p role="status">{t.preview.loading}</p>
      ) : preview.gains.count === 0 && preview.losses.count === 0 ? (
        <p>{t.preview.nothing}</p>
      ) : (
        <>
          <AccessTable caption={t.preview.gains(countText(preview.gains))} access={preview.gains} />
          <AccessTable caption={t.preview.losses(countText(preview.losses))} access={preview.losses} />
        </>
      )}
    </section>
  );
}
