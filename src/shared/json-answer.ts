/**
 * Reading an HTTP answer whole: its text and, when it is JSON, the parsed value. Shared by the clients that talk to
 * the controller (the SDK, the router's enrollment), so each does not read, cap and parse bodies its own way.
 */

/** What is read of a response stream (node:http's IncomingMessage is one); named here so this module does no I/O itself. */
interface AnswerStream {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

export interface JsonAnswerBody {
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

/**
 * Collects `res` to its end; an answer past `maxBytes` destroys the response with an error instead (the 'error'
 * handler the caller already has then reports it).
 */
export function readJsonAnswer(res: AnswerStream, maxBytes = Number.POSITIVE_INFINITY): Promise<JsonAnswerBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) res.destroy(new Error(`the answer passed ${maxBytes} bytes`));
      else chunks.push(chunk);
    });
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ text, json });
    });
  });
}
