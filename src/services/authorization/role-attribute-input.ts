/**
 * The role attributes an entity is given (edge routers, posture checks): each must be usable in a policy's
 * `#attribute` role (policy/roles.ts). Repeats are dropped rather than refused, as identities do.
 */
import { ApiError } from '../../errors/api-error.js';
import { roleAttributeProblem } from '../../policy/roles.js';

/**
 * The attributes without repeats; 400 COULD_NOT_VALIDATE naming `roleAttributes[i]` for the first one that cannot
 * be an attribute.
 */
export function checkedRoleAttributes(attributes: readonly string[]): string[] {
  for (const [index, attribute] of attributes.entries()) {
    const reason = roleAttributeProblem(attribute);
    if (reason) {
      const field = `roleAttributes[${index}]`;
      throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value: attribute } });
    }
  }
  return [...new Set(attributes)];
}
