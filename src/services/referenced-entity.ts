/**
 * The 409 a delete answers while other entities use the one being deleted: the message names the users (the first
 * few by name, with the total), so the operator knows what to change first without another query.
 */
import { ApiError } from '../errors/api-error.js';

/** How many users a refusal names; the total is always given. */
export const NAMED_USERS = 5;

export interface ReferencedEntity {
  /** The deleted entity's kind and name, as the message says them: `config 'web-host'`. */
  label: string;
  name: string;
  id: string;
  /** The users' kind, singular and plural (`service`, `services`), and the API's resource name for `cause.referencedBy`. */
  singular: string;
  plural: string;
  referencedBy: string;
  total: number;
  /** Up to NAMED_USERS of the users (sorted by name here); `cause[referencedBy]` lists them. */
  users: { id: string; name: string }[];
  /** What to do instead, as one clause: "remove it from the service first". */
  advice: string;
}

export function referencedEntityError(ref: ReferencedEntity): ApiError {
  const users = [...ref.users].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const quoted = users.map((user) => `'${user.name}'`).join(', ');
  const who =
    ref.total === 1 && users.length === 1
      ? `${ref.singular} ${quoted}`
      : ref.total <= users.length
        ? `${ref.total} ${ref.plural}: ${quoted}`
        : `${ref.total} ${ref.plural}, among them ${quoted}`;
  return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
    message: `The ${ref.label} '${ref.name}' is used by ${who}; ${ref.advice}`,
    cause: { field: 'id', value: ref.id, referencedBy: ref.referencedBy, count: ref.total, [ref.referencedBy]: users },
  });
}
