/**
 * Password rules of an auth policy (primary.updb), as pure checks: what is wrong with a candidate password, in
 * words a user can act on. The spec's absolute limits (5 to 100 characters) apply whatever the policy says.
 */
import type { AuthPolicyBody } from '../domain/auth-policy.js';

/** Every rule the password breaks (empty when it is acceptable). */
export function passwordProblems(rules: AuthPolicyBody['primary']['updb'], password: string): string[] {
  const problems: string[] = [];
  const minimum = Math.max(5, rules.minPasswordLength);
  if (password.length < minimum) problems.push(`must be at least ${minimum} characters`);
  if (password.length > 100) problems.push('must be at most 100 characters');
  if (rules.requireNumberChar && !/[0-9]/.test(password)) problems.push('must contain a digit');
  if (rules.requireSpecialChar && !/[^A-Za-z0-9]/.test(password)) problems.push('must contain a character that is neither a letter nor a digit');
  if (rules.requireMixedCase && !(/[a-z]/.test(password) && /[A-Z]/.test(password))) {
    problems.push('must contain both lower-case and upper-case letters');
  }
  return problems;
}
