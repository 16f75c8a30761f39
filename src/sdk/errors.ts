/**
 * The SDK's one error class: every failure a caller of `svc/sdk` sees is an SdkError with a stable `code` and a
 * sentence saying what was wrong and where, so an application can branch on the code and log the message as it is.
 */

export type SdkErrorCode =
  | 'BAD_IDENTITY'
  | 'CONTROLLER_UNREACHABLE'
  | 'NOT_AUTHENTICATED'
  | 'NO_SUCH_SERVICE'
  | 'NOT_AUTHORIZED'
  | 'NO_ROUTER'
  | 'DIAL_FAILED'
  | 'BIND_FAILED'
  | 'CRYPTO_FAILED'
  | 'TIMEOUT'
  | 'CLOSED';

export class SdkError extends Error {
  override readonly name = 'SdkError';
  constructor(
    readonly code: SdkErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Whether `error` is an SdkError of `code`. */
export const isSdkError = (error: unknown, code?: SdkErrorCode): error is SdkError => error instanceof SdkError && (code === undefined || error.code === code);
