/**
 * The role attributes an entity is given (identities, services, edge routers, posture checks, and the attributes a CA
 * gives the identities it enrolls): each must be usable in a policy's `#attribute` role and unambiguous (policy/roles.ts,
 * decision 0059), and none may be given twice.
 */
import { ApiError } from '../errors/api-error.js';
import { roleAttributeListProblem } from '../policy/roles.js';

/**
 * 400 COULD_NOT_VALIDATE naming `<field>[i]` (e.g. `roleAttributes[2]`), the reason and the character, for the first
 * attribute refused. `kept`: the attributes the entity already holds, not judged again.
 *
 * @example checkRoleAttributes(['east', 'east\u200b']) // throws: roleAttributes[1] must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 5)
 */
export function checkRoleAttributes(attributes: readonly string[], options: { field?: string; kept?: readonly string[] } = {}): void {
  const problem = roleAttributeListProblem(attributes, options.kept);
  if (!problem) return;
  const field = `${options.field ?? 'roleAttributes'}[${problem.index}]`;
  const value = attributes[problem.index] ?? null;
  throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${problem.reason}`, cause: { field, reason: problem.reason, value } });
}
