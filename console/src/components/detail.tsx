/**
 * A detail page: loads one entity from the API, shows its title, its facts as a definition list, and the screen's
 * sections and actions. A missing entity says so (the API's 404 message) instead of an empty page.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { get } from '../api/client';
import { t } from '../strings';
import { Problem } from './problem';

/** Loads `path` and reloads on demand (after an action changed the entity). */
export function useEntity<T>(path: string): { entity: T | undefined; error: unknown; reload: () => void } {
  const [entity, setEntity] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    get<T>(path, abort.signal)
      .then((answer) => (setEntity(answer.data), setError(undefined)))
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { entity, error, reload };
}

export function Facts({ facts }: { facts: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {facts.map(([label, value]) => [<dt key={`${label}-t`}>{label}</dt>, <dd key={`${label}-d`}>{value ?? t.common.none}</dd>])}
    </dl>
  );
}

export function DetailScreen(props: { title: string | undefined; error: unknown; actions?: ComponentChildren; children?: ComponentChildren }) {
  if (props.error !== undefined) return <Problem error={props.error} />;
  if (props.title === undefined) return <p role="status">{t.list.loading}</p>;
  return (
    <section class="detail" aria-labelledby="detail-title">
      <header class="screen-head">
        <h1 id="detail-title">{props.title}</h1>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A titled part of a detail page. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="part" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A button that asks before it acts (deletes, resets): the question names what will happen. */
export function ConfirmButton({ label, question, onConfirm, danger = true }: { label: string; question: string; onConfirm: () => Promise<void> | void; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  if (!asking) {
    return (
      <button type="button" class={danger ? 'danger' : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        class={danger ? 'danger' : 'primary'}
        onClick={async () => {
          try {
            await onConfirm();
            setAsking(false);
          } catch (problem) {
            setError(problem);
          }
        }}
      >
        {t.common.confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {t.common.cancel}
      </button>
      <Problem error={error} />
    </span>
  );
}
