/**
 * The one error a router's setup raises: enrolling, loading its identity, renewing. Its message is a single
 * sentence naming the file or thing at fault and what is wrong, written for the operator who reads it as the
 * process's last line (issue 41: "an unrecoverable problem exits non-zero with one clear sentence").
 */
export class RouterSetupError extends Error {
  override readonly name = 'RouterSetupError';
}
