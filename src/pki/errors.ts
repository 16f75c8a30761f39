/**
 * The error thrown by the PKI module. Its message is written for an operator reading a startup log:
 * it names the file involved and says what is wrong in plain words. Key material never appears in it.
 */
export class PkiError extends Error {
  override readonly name = 'PkiError';
}
