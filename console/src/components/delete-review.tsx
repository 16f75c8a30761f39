/**
 * Deleting an entity whose delete can move access (a policy, a posture check): first who gains and who loses what
 * (the API's change preview with `delete: true`, nothing deleted by asking), then delete on the button that says so,
 * or cancel. The API's refusal of the delete is shown under the preview.
 */
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { t } from '../strings';
import { ChangePreview, saveLabel, useChangePreview, type PreviewEntity } from './change-preview';
import { Problem } from './problem';

export interface DeleteReviewProps {
  entity: PreviewEntity;
  id: string;
  /** What the group is called for assistive technology: the question being answered. */
  question: string;
  /** After the delete succeeded (leave the page, drop a draft). */
  onDeleted: () => void;
  onCancel: () => void;
}

export function DeleteReview({ entity, id, question, onDeleted, onCancel }: DeleteReviewProps) {
  const state = useChangePreview({ entity, id, delete: true, change: {} });
  const [error, setError] = useState<unknown>(undefined);
  const remove = async () => {
    try {
      await api('DELETE', `/${entity}/${encodeURIComponent(id)}`);
      onDeleted();
    } catch (problem) {
      setError(problem);
    }
  };
  return (
    <div class="delete-review" role="group" aria-label={question}>
      <ChangePreview entity={entity} id={id} delete change={{}} state={state} />
      <Problem error={error} />
      <div class="actions">
        <button type="button" class="danger" disabled={state.preview === undefined && state.error === undefined} onClick={() => void remove()}>
          {saveLabel(t.preview.delete, state.preview)}
        </button>
        <button type="button" onClick={onCancel}>
          {t.common.cancel}
        </button>
      </div>
    </div>
  );
}
