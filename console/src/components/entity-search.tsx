/**
 * Finding one entity by name, answered by the API (the list's name-range filter, `limit=10`), never by loading the
 * collection: a search box and the matches as buttons. The role picker adds an `@entity` with it; the reach page
 * picks its identity and service with it.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../api/client';
import { t } from '../strings';
import { filterFor } from './list-screen';
import { Problem } from './problem';

export interface Named {
  id: string;
  name: string;
}

const SHOWN = 10;

export function EntitySearch(props: { id: string; label: string; collection: string; resultsLabel: string; pickLabel: (name: string) => string; onPick: (entity: Named) => void }) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<Named[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    const filter = filterFor(text, ['name']);
    if (!filter) return setFound(undefined);
    const abort = new AbortController();
    // As the user pauses typing, not on every key.
    const timer = setTimeout(() => {
      get<Named[]>(`${props.collection}${query({ filter, sort: 'name asc', limit: SHOWN })}`, abort.signal)
        .then((answer) => (setFound(answer.data), setError(undefined)))
        .catch((problem: unknown) => {
          if (!abort.signal.aborted) setError(problem);
        });
    }, 200);
    return () => (clearTimeout(timer), abort.abort());
  }, [text, props.collection]);
  return (
    <div class="entity-search">
      <label for={props.id}>{props.label}</label>
      <input id={props.id} type="search" value={text} aria-describedby={`${props.id}-hint`} onInput={(event) => setText((event.target as HTMLInputElement).value)} />
      <span class="hint" id={`${props.id}-hint`}>
        {t.roles.findHint}
      </span>
      <Problem error={error} />
      {found && (
        <ul class="found" aria-label={props.resultsLabel}>
          {found.length === 0 && <li>{t.list.empty}</li>}
          {found.map((entity) => (
            <li key={entity.id}>
              <button type="button" aria-label={props.pickLabel(entity.name)} onClick={() => (props.onPick(entity), setText(''))}>
                {entity.name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
