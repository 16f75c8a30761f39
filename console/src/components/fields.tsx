/** Small display pieces shared by screens: a date, a yes/no, a list of role attributes. */
import { t } from '../strings';

export const DateTime = ({ value }: { value?: string | null }) =>
  value ? <time dateTime={value}>{new Date(value).toLocaleString()}</time> : <span>{t.common.none}</span>;

export const YesNo = ({ value }: { value?: boolean }) => <span>{value ? t.common.yes : t.common.no}</span>;

export const Attributes = ({ values }: { values?: string[] | null }) =>
  values && values.length > 0 ? (
    <ul class="chips">
      {values.map((value) => (
        <li key={value}>#{value}</li>
      ))}
    </ul>
  ) : (
    <span>{t.common.none}</span>
  );
