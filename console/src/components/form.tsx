/**
 * Forms of the console: labelled fields, the API's refusal shown at the field it names (and announced), a submit
 * that is busy while the request runs, and cancel. Screens keep their values with useDraft (api/drafts.ts), so an
 * ended session loses nothing typed. Validation is the API's: the console shows it, it does not second-guess it.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { t } from '../strings';

/** The message for `name` when the error is the API's refusal of that field (or of something inside it). */
export function fieldError(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  return error.field === name || error.field.startsWith(`${name}.`) || error.field.startsWith(`${name}[`) ? error.message : undefined;
}

interface FieldProps {
  /** The body's field name: the input's id and name, and what API errors are matched on. */
  name: string;
  label: string;
  error?: unknown;
  hint?: string;
  required?: boolean;
}

function FieldFrame({ name, label, error, hint, children }: FieldProps & { children: ComponentChildren }) {
  const problem = fieldError(error, name);
  return (
    <div class={problem ? 'field invalid' : 'field'}>
      <label for={`field-${name}`}>{label}</label>
      {children}
      {hint && (
        <span class="hint" id={`hint-${name}`}>
          {hint}
        </span>
      )}
      {problem && (
        <span class="field-problem" id={`problem-${name}`} role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

const describedBy = (name: string, error: unknown, hint?: string) =>
  [hint ? `hint-${name}` : '', fieldError(error, name) ? `problem-${name}` : ''].filter(Boolean).join(' ') || undefined;

export function TextField(props: FieldProps & { value: string; onInput: (value: string) => void; type?: string; multiline?: boolean; rows?: number }) {
  const common = {
    id: `field-${props.name}`,
    name: props.name,
    value: props.value,
    required: props.required,
    'aria-invalid': fieldError(props.error, props.name) ? true : undefined,
    'aria-describedby': describedBy(props.name, props.error, props.hint),
    onInput: (event: Event) => props.onInput((event.target as HTMLInputElement).value),
  };
  return <FieldFrame {...props}>{props.multiline ? <textarea {...common} rows={props.rows ?? 8} /> : <input {...common} type={props.type ?? 'text'} />}</FieldFrame>;
}

export function CheckboxField(props: FieldProps & { checked: boolean; onChange: (checked: boolean) => void }) {
  const problem = fieldError(props.error, props.name);
  return (
    <div class={problem ? 'field checkbox invalid' : 'field checkbox'}>
      <input
        id={`field-${props.name}`}
        name={props.name}
        type="checkbox"
        checked={props.checked}
        aria-describedby={describedBy(props.name, props.error, props.hint)}
        onChange={(event) => props.onChange((event.target as HTMLInputElement).checked)}
      />
      <label for={`field-${props.name}`}>{props.label}</label>
      {props.hint && (
        <span class="hint" id={`hint-${props.name}`}>
          {props.hint}
        </span>
      )}
      {problem && (
        <span class="field-problem" id={`problem-${props.name}`} role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

export function SelectField(props: FieldProps & { value: string; options: { value: string; label: string }[]; onChange: (value: string) => void }) {
  return (
    <FieldFrame {...props}>
      <select
        id={`field-${props.name}`}
        name={props.name}
        value={props.value}
        required={props.required}
        aria-describedby={describedBy(props.name, props.error, props.hint)}
        onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** Role attributes typed as a comma-separated list (`web, eu`); the value is the list, trimmed, without empties. */
export function AttributesField(props: FieldProps & { value: string[]; onInput: (value: string[]) => void }) {
  const [text, setText] = useState(props.value.join(', '));
  return (
    <TextField
      {...props}
      hint={props.hint ?? t.form.attributesHint}
      value={text}
      onInput={(value) => {
        setText(value);
        props.onInput(value.split(',').map((part) => part.trim().replace(/^#/, '')).filter(Boolean));
      }}
    />
  );
}

/**
 * A form whose submit calls `onSubmit`; a refusal it throws is kept and shown: at its field when a field shows it,
 * and at the top otherwise (always, for screen readers, once).
 */
export function Form(props: {
  label: string;
  submitLabel: string;
  onSubmit: () => Promise<void>;
  onCancel?: () => void;
  error: unknown;
  setError: (error: unknown) => void;
  fieldNames: string[];
  children: ComponentChildren;
  extraActions?: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const atField = props.fieldNames.some((name) => fieldError(props.error, name));
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    props.setError(undefined);
    try {
      await props.onSubmit();
    } catch (error) {
      props.setError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form" aria-label={props.label} onSubmit={submit} noValidate>
      {props.error !== undefined && !atField && (
        <p class="problem" role="alert">
          {props.error instanceof Error ? props.error.message : String(props.error)}
        </p>
      )}
      {props.children}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {props.submitLabel}
        </button>
        {props.extraActions}
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            {t.common.cancel}
          </button>
        )}
      </div>
    </form>
  );
}
