/** Storage failures become KitError ERR_STORE; the kit's own errors pass through unchanged. */
import { KitError, isKitError } from '../../../errors.js';
import { maskCardNumbers } from '../../../logging.js';

export function storeError(adapter: string, op: string, cause: unknown): KitError {
  if (isKitError(cause)) return cause;
  const reason = cause instanceof Error ? maskCardNumbers(cause.message) : 'unknown failure';
  return new KitError('ERR_STORE', `${adapter} order store: ${op} failed: ${reason}`, {
    cause,
    details: { adapter, op },
  });
}

/** Runs `fn`, turning any driver failure into ERR_STORE naming the operation. */
export async function guarded<T>(adapter: string, op: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw storeError(adapter, op, error);
  }
}
