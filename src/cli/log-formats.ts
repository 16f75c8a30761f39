/**
 * The log formats (logger.ts), apart from the logger so that the command tree can name them without loading pino.
 */
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
