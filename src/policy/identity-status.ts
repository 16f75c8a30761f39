/**
 * Whether an identity may act now: a disabled identity cannot log in and its live sessions stop working,
 * until an administrator enables it or its lockout runs out (`disabledUntil`). The building block of
 * `decidePrincipal` (principal.ts), which callers use instead (decision 0019).
 */
import type { Identity } from '../domain/identity.js';

export function isIdentityDisabled(identity: Pick<Identity, 'disabled' | 'disabledUntil'>, now: Date): boolean {
  if (!identity.disabled) return false;
  return identity.disabledUntil === null || identity.disabledUntil.getTime() > now.getTime();
}
