/**
 * RFC 3339 date-times as the filter language accepts them (`2021-01-02T15:04:05Z`, `...05.123+02:00`),
 * normalised to the stored text form (`YYYY-MM-DDTHH:mm:ss.sssZ`, see tables.ts) so they compare as text.
 */

// RFC 3339 §5.6 `date-time`; `t`/`z` may be lower case (§5.6 NOTE). Fractions beyond milliseconds are kept
// only to the millisecond because that is what the store holds.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** The stored form of an RFC 3339 date-time, or undefined when `text` is not a valid one. */
export function normaliseDatetime(text: string): string | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone = '', zoneHour = '0', zoneMinute = '0'] = match;
  const inRange =
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= daysInMonth(Number(year), Number(month)) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    // JavaScript dates have no leap second, so :60 is refused rather than silently moved.
    Number(second) <= 59 &&
    Number(zoneHour) <= 23 &&
    Number(zoneMinute) <= 59;
  if (!inRange) return undefined;
  const millis = fraction.padEnd(3, '0').slice(0, 3);
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}${zone.toUpperCase()}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}
