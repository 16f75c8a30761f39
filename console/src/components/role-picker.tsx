/**
 * A policy's role list (identityRoles, serviceRoles, …): `#attribute`s typed, `@entity`s found by name on the server,
 * and `#all`, each removable; below them the entities the list matches under the policy's semantic, as the API
 * counts them (`roleFilter`/`roleSemantic`, `limit=10`): the count and the first ten names, so the author sees what
 * the policy will select before saving it.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../api/client';
import { t } from '../strings';
import { EntitySearch, type Named } from './entity-search';
import { Problem } from './problem';

/** How to show a role: `#web`, `#all`, `@alice` (the name of the entity `@id` names, when known). */
export const roleLabel = (role: string, names: Record<string, string>) => (role.startsWith('@') && names[role] ? `@${names[role]}` : role);

const PREVIEW = 10;

export interface RolePickerProps {
  /** The body's field (`identityRoles`): ids, and what an API refusal names. */
  name: string;
  label: string;
  /** The collection the roles select from, e.g. `/identities`. */
  collection: string;
  /** Plural noun for the preview: "identities". */
  what: string;
  roles: string[];
  names: Record<string, string>;
  semantic: string;
  problem?: string;
  onChange: (roles: string[], names: Record<string, string>) => void;
}

function MatchPreview({ collection, roles, semantic, what, id }: { collection: string; roles: string[]; semantic: string; what: string; id: string }) {
  const [matched, setMatched] = useState<{ count: number; names: string[] } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const key = `${roles.join('\n')}|${semantic}`;
  useEffect(() => {
    setMatched(undefined);
    setError(undefined);
    if (roles.length === 0) return;
    const abort = new AbortController();
    get<Named[]>(`${collection}${query({ roleFilter: roles, roleSemantic: semantic, sort: 'name asc', limit: PREVIEW })}`, abort.signal)
      .then((answer) => setMatched({ count: answer.meta?.pagination?.totalCount ?? answer.data.length, names: answer.data.map((row) => row.name) }))
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [collection, key]);
  if (roles.length === 0) return <p class="matches" id={id}>{t.roles.noRoles}</p>;
  if (error !== undefined) return <Problem error={error} prefix={t.roles.previewFailed} />;
  return (
    <div class="matches" id={id} aria-live="polite">
      {matched === undefined ? (
        <p>{t.list.loading}</p>
      ) : (
        <p>
          <strong>{t.roles.matches(matched.count, what)}</strong>
          {matched.names.length > 0 && ` (${t.roles.firstOf(matched.names.length)} ${matched.names.join(', ')})`}
        </p>
      )}
    </div>
  );
}

export function RolePicker(props: RolePickerProps) {
  const [attribute, setAttribute] = useState('');
  const add = (role: string, name?: string) => {
    if (props.roles.includes(role)) return;
    props.onChange([...props.roles, role], name ? { ...props.names, [role]: name } : props.names);
  };
  const addAttribute = () => {
    const value = attribute.trim().replace(/^#/, '');
    if (value) add(`#${value}`);
    setAttribute('');
  };
  const base = `roles-${props.name}`;
  return (
    <fieldset class={props.problem ? 'role-picker invalid' : 'role-picker'} aria-describedby={`${base}-matches`}>
      <legend>{props.label}</legend>
      {props.problem && (
        <p class="field-problem" role="alert" id={`problem-${props.name}`}>
          {props.problem}
        </p>
      )}
      <ul class="chips" aria-label={props.label}>
        {props.roles.map((role) => (
          <li key={role}>
            {roleLabel(role, props.names)}
            <button type="button" class="chip-remove" aria-label={t.roles.remove(roleLabel(role, props.names))} onClick={() => props.onChange(props.roles.filter((r) => r !== role), props.names)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div class="role-add">
        <label for={`${base}-attribute`}>{t.roles.attribute(props.label)}</label>
        <input
          id={`${base}-attribute`}
          value={attribute}
          onInput={(event) => setAttribute((event.target as HTMLInputElement).value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            addAttribute();
          }}
        />
        <button type="button" onClick={addAttribute}>
          {t.roles.addAttribute}
        </button>
        <button type="button" onClick={() => add('#all')} disabled={props.roles.includes('#all')}>
          {t.roles.addAll}
        </button>
      </div>
      <EntitySearch
        id={`${base}-find`}
        label={t.roles.find(props.what)}
        collection={props.collection}
        resultsLabel={t.roles.results(props.what)}
        pickLabel={t.roles.add}
        onPick={(entity) => add(`@${entity.id}`, entity.name)}
      />
      <MatchPreview id={`${base}-matches`} collection={props.collection} roles={props.roles} semantic={props.semantic} what={props.what} />
    </fieldset>
  );
}
