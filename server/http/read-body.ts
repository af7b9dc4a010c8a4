/**
 * Reads a request's body bytes up to a limit, with stream events (an async iterator cost more
 * than the read itself). The one raw reader behind the checkout routes' and the sandbox's body
 * parsers; each says which error a too-large or broken-off body becomes.
 */
import type { IncomingMessage } from 'node:http';

export interface BodyErrors {
  /** The declared or actual size passed the limit. */
  tooLarge(): Error;
  /** The sender went away before the end of the body. */
  incomplete(): Error;
}

export function readBodyBytes(req: IncomingMessage, limit: number, errors: BodyErrors): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    // Say no without reading megabytes.
    req.resume();
    return Promise.reject(errors.tooLarge());
  }
  // Already read by someone else (a parser that left nothing behind): nothing is left to read.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) {
        // Found only while reading (no or a false content-length): drain the rest unread.
        finish();
        req.resume();
        reject(errors.tooLarge());
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = (): void => {
      finish();
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      finish();
      reject(error);
    };
    // Closed before the end: the sender went away mid-body.
    const onClose = (): void => {
      finish();
      reject(errors.incomplete());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
