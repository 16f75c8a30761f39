/**
 * Why a router's control request was refused: the code goes on the wire (ControlErrorCode), the sentence in the
 * body. Its own module so that every part of the routers domain answering a request throws the same class.
 */
export class RouterRequestError extends Error {
  override readonly name = 'RouterRequestError';
  constructor(
    readonly code: 'NOT_FOUND' | 'NOT_ALLOWED' | 'BAD_MESSAGE',
    message: string,
  ) {
    super(message);
  }
}
