/**
 * Drafts of forms, kept in sessionStorage as they are typed: a session that ends mid-edit sends the user to sign in
 * and back, and the form comes back as it was. A draft is dropped when its form is saved or cancelled.
 */
import { useEffect, useState } from 'preact/hooks';

const PREFIX = 'svc.console.draft.';

export function useDraft<T>(key: string, initial: () => T): [T, (next: T) => void, () => void] {
  const [value, setValue] = useState<T>(() => {
    const saved = sessionStorage.getItem(PREFIX + key);
    if (saved !== null) {
      try {
        return JSON.parse(saved) as T;
      } catch {
        // a draft from an older console: start afresh
      }
    }
    return initial();
  });
  useEffect(() => {
    sessionStorage.setItem(PREFIX + key, JSON.stringify(value));
  }, [key, value]);
  const discard = () => sessionStorage.removeItem(PREFIX + key);
  return [value, setValue, discard];
}
