/**
 * The expiry board (issue 45, `GET /expiries?within=P30D`): what ends within a window from now, already ended first,
 * soonest first, paged. The window is an ISO 8601 duration of days, weeks or hours (P30D, P2W, PT12H), at most a year.
 */
import { ApiError } from '../../errors/api-error.js';
import type { ExpiringThing, ExpiryRepository } from '../../persistence/repositories/expiries.js';
import type { Clock } from '../../shared/clock.js';

export const DEFAULT_WITHIN = 'P30D';
const MAX_WITHIN_MS = 366 * 86_400_000;
const MAX_LIMIT = 500;
const DURATION = /^P(?:(\d{1,4})W|(\d{1,4})D|T(\d{1,5})H|(\d{1,4})DT(\d{1,5})H)$/;

export interface ExpiryPage {
  items: ExpiringThing[];
  pagination: { limit: number; offset: number; totalCount: number };
  within: string;
  until: Date;
}

export interface ExpiryBoard {
  page(options: { within?: string; limit?: number; offset?: number }): Promise<ExpiryPage>;
}

const refuse = (field: string, value: unknown, reason: string) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `${field} ${reason}`, cause: { field, reason, value: String(value) } });

/** Milliseconds of an ISO 8601 window, or an error naming the value, the forms accepted and the maximum. */
export function windowMs(within: string): number {
  const match = DURATION.exec(within);
  if (!match) throw refuse('within', within, `'${within}' is not a window this board reads: use days (P30D), weeks (P2W) or hours (PT12H), at most a year`);
  const [, weeks, days, hours, bothDays, bothHours] = match;
  const ms = (Number(weeks ?? 0) * 7 + Number(days ?? 0) + Number(bothDays ?? 0)) * 86_400_000 + (Number(hours ?? 0) + Number(bothHours ?? 0)) * 3_600_000;
  if (ms <= 0) throw refuse('within', within, 'must be longer than zero');
  if (ms > MAX_WITHIN_MS) throw refuse('within', within, `'${within}' is longer than a year, the most this board looks ahead`);
  return ms;
}

export function createExpiryBoard(deps: { expiries: ExpiryRepository; clock: Clock }): ExpiryBoard {
  return {
    async page({ within = DEFAULT_WITHIN, limit = 25, offset = 0 }) {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw refuse('limit', limit, `must be a whole number from 1 to ${MAX_LIMIT}`);
      if (!Number.isInteger(offset) || offset < 0) throw refuse('offset', offset, 'must be a whole number, 0 or more');
      const until = new Date(deps.clock.now().getTime() + windowMs(within));
      const { items, total } = await deps.expiries.endingBefore(until, offset + limit);
      return { items: items.slice(offset, offset + limit), pagination: { limit, offset, totalCount: total }, within, until };
    },
  };
}
