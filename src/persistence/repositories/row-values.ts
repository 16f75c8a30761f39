/**
 * Conversions between stored column values and domain values that every repository needs
 * (ISO text timestamps, 0/1 or native booleans, JSON text columns).
 */
export const toDate = (value: string): Date => new Date(value);
export const toDateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));
export const toIso = (value: Date): string => value.toISOString();
export const toIsoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());
export const toBool = (value: boolean | number): boolean => Boolean(value);
export const parseJson = <T>(text: string): T => JSON.parse(text) as T;
