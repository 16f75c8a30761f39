/**
 * A config's data edited as a form drawn from its config type's JSON Schema: each top-level property becomes a field
 * (text, number, yes/no, a choice for an enum, a comma-separated list for an array of strings, JSON text for anything
 * deeper), named `data.PROPERTY` so the API's refusal (`data.port`, `data.portRanges[0].low`) shows at the field it is
 * about. The API validates; the form only shapes the input. A schema it cannot draw is edited as JSON text.
 */
import { useState } from 'preact/hooks';
import { CheckboxField, SelectField, TextField } from './form';
import { t } from '../strings';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  description?: string;
}

type Data = Record<string, unknown>;

const kindOf = (schema: JsonSchema): 'string' | 'number' | 'boolean' | 'enum' | 'strings' | 'json' => {
  if (schema.enum && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (type === 'string') return 'string';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'array' && schema.items?.type === 'string') return 'strings';
  return 'json';
};

/** Whether the form can draw the schema: an object with properties. */
export const drawable = (schema: JsonSchema | undefined): schema is JsonSchema & { properties: Record<string, JsonSchema> } =>
  !!schema && schema.type === 'object' && !!schema.properties && Object.keys(schema.properties).length > 0;

function JsonProperty({ name, label, value, onChange, error, hint }: { name: string; label: string; value: unknown; onChange: (v: unknown) => void; error: unknown; hint?: string }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <TextField
      name={name}
      label={label}
      multiline
      rows={4}
      value={text}
      error={error}
      hint={bad ? t.configs.notJson : hint}
      onInput={(next) => {
        setText(next);
        if (next.trim() === '') return (setBad(false), onChange(undefined));
        try {
          onChange(JSON.parse(next));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

export function SchemaForm({ schema, data, onChange, error }: { schema: JsonSchema & { properties: Record<string, JsonSchema> }; data: Data; onChange: (data: Data) => void; error: unknown }) {
  const set = (key: string, value: unknown) => {
    const next = { ...data };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange(next);
  };
  return (
    <fieldset class="schema-form">
      <legend>{t.configs.data}</legend>
      {Object.entries(schema.properties).map(([key, property]) => {
        const name = `data.${key}`;
        const label = `${key}${schema.required?.includes(key) ? ` (${t.configs.required})` : ''}`;
        const hint = property.description;
        const value = data[key];
        switch (kindOf(property)) {
          case 'string':
            return <TextField key={key} name={name} label={label} hint={hint} value={typeof value === 'string' ? value : ''} onInput={(v) => set(key, v)} error={error} />;
          case 'number':
            return (
              <TextField key={key} name={name} label={label} hint={hint} type="number" value={value === undefined ? '' : String(value)} onInput={(v) => set(key, v === '' ? undefined : Number(v))} error={error} />
            );
          case 'boolean':
            return <CheckboxField key={key} name={name} label={label} hint={hint} checked={value === true} onChange={(v) => set(key, v)} error={error} />;
          case 'enum':
            return (
              <SelectField
                key={key}
                name={name}
                label={label}
                hint={hint}
                value={typeof value === 'string' ? value : ''}
                options={[{ value: '', label: t.common.none }, ...(property.enum as string[]).map((v) => ({ value: v, label: v }))]}
                onChange={(v) => set(key, v === '' ? undefined : v)}
                error={error}
              />
            );
          case 'strings':
            return (
              <TextField
                key={key}
                name={name}
                label={label}
                hint={hint ?? t.configs.listHint}
                value={Array.isArray(value) ? value.join(', ') : ''}
                onInput={(v) => set(key, v.trim() === '' ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean))}
                error={error}
              />
            );
          default:
            return <JsonProperty key={key} name={name} label={label} hint={hint} value={value} onChange={(v) => set(key, v)} error={error} />;
        }
      })}
    </fieldset>
  );
}
