/**
 * Joins two byte streams both ways, as a tunneler joins a local socket and an overlay connection: what one reads the
 * other writes, a half-close (end) passes through so the other side may still answer, and pipe() holds back a writer
 * whose reader is slow. When one side closes, the other gets what was already written to it and then closes too (a
 * side that closed without its FIN leaves nothing to carry); an error on either side ends both at once.
 */
import type { Duplex } from 'node:stream';

/** `stream` ends its writing side, delivers what it holds, then closes. */
function finishThenClose(stream: Duplex): void {
  if (stream.destroyed) return;
  if (stream.writableFinished) return void stream.destroy();
  stream.once('finish', () => stream.destroy());
  stream.end();
}

export function relay(a: Duplex, b: Duplex): void {
  const endBoth = () => {
    a.destroy();
    b.destroy();
  };
  a.once('error', endBoth);
  b.once('error', endBoth);
  a.once('close', () => finishThenClose(b));
  b.once('close', () => finishThenClose(a));
  a.pipe(b);
  b.pipe(a);
}
