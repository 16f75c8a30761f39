/** An error the API or the browser gave, said in a sentence, announced to screen readers. */
import { ApiError } from '../api/client';

export function Problem({ error, prefix }: { error: unknown; prefix?: (why: string) => string }) {
  if (error === undefined || error === null) return null;
  const why = error instanceof Error ? error.message : String(error);
  const field = error instanceof ApiError && error.field ? ` (${error.field})` : '';
  return (
    <p class="problem" role="alert">
      {prefix ? prefix(why + field) : why + field}
    </p>
  );
}
