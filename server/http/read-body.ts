/**
 * The one request body reader behind the checkout's posted bodies (notify, return, pay), the
 * admin's forms and the sandbox. The routers read bodies themselves, so they work whatever body
 * parsers the host app mounted before them: when such a parser already consumed the stream, its
 * `req.body` is handed back instead of bytes. Each caller says which errors a too-large or
 * broken-off body becomes, and interprets the fields its own way.
 *
 * The bytes are read with stream events rather than an async iterator (which cost more than the
 * read itself) or raw-body (which pauses the stream on a too-large body, so the client sees a
 * reset instead of the 413).
 */
import type { IncomingMessage } from 'node:http';

export interface BodyErrors {
  /** The declared or actual size passed the limit. */
  tooLarge(): Error;
  /** The sender went away before the end of the body. */
  incomplete(): Error;
}

export type RequestBody =
  /** Read here: the bytes as sent and the Content-Type header ('' when none). */
  | { consumed: false; raw: Buffer; contentType: string }
  /** A host app's parser read the stream first: what it left on `req.body`. */
  | { consumed: true; parsed: unknown; contentType: string };

/** Name/value pairs in the order sent; a multipart file part is a Blob. */
export type FormEntry = [name: string, value: string | Blob];

/** True once the stream has been read to its end (by a host app's body parser, say). */
export function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || (req.complete && !req.readable);
}

export function isMultipart(contentType: string): boolean {
  return /^multipart\/form-data/i.test(contentType);
}

/** Reads a request's body bytes up to `limit`. */
export function readBodyBytes(req: IncomingMessage, limit: number, errors: BodyErrors): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    // Say no without reading megabytes; the rest drains, so the client reads the 413, not a reset.
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

/** The body of `req`: its bytes when unread, else what the host app's parser left on `req.body`. */
export async function readRequestBody(req: IncomingMessage, limit: number, errors: BodyErrors): Promise<RequestBody> {
  const contentType = req.headers['content-type'] ?? '';
  if (bodyConsumed(req)) return { consumed: true, parsed: (req as { body?: unknown }).body, contentType };
  return { consumed: false, raw: await readBodyBytes(req, limit, errors), contentType };
}

/**
 * The fields of a multipart body, or of URL-encoded text (any other bytes read as URL-encoded).
 * Rejects when multipart is malformed.
 */
export async function formEntries(body: Buffer | string, contentType: string): Promise<FormEntry[]> {
  if (isMultipart(contentType)) {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
    const out: FormEntry[] = [];
    form.forEach((value, key) => {
      out.push([key, value]);
    });
    return out;
  }
  return [...new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))];
}
