/**
 * One gateway request attempt, observed: a CLIENT span named after the operation (its attempt
 * number and HTTP status, never the body) and the request counter and latency histogram.
 */
import { GatewayError, TransportError } from '../errors.js';
import { inClientSpan } from '../tracing.js';

/** How one gateway request ended. */
export type GatewayCallOutcome = 'ok' | 'refused' | 'timeout' | 'connection_error' | 'error';

/** What the client reports of each request attempt (the kit's observer is one: observability/observer.ts). */
export interface GatewayCallObserver {
  gatewayCall(operation: string, outcome: GatewayCallOutcome, seconds: number): void;
}

function outcomeOf(error: unknown): GatewayCallOutcome {
  if (error instanceof TransportError) return error.code === 'ERR_TRANSPORT_TIMEOUT' ? 'timeout' : 'connection_error';
  if (error instanceof GatewayError) return 'refused';
  return 'error';
}

export function observeGatewayCall<T extends { status: number }>(
  observer: GatewayCallObserver | undefined, operation: string, attempt: number, run: () => Promise<T>,
): Promise<T> {
  return inClientSpan(`gateway ${operation}`, { 'gateway.operation': operation, 'gateway.attempt': attempt }, async (span) => {
    const started = performance.now();
    try {
      const reply = await run();
      span.setAttribute('http.response.status_code', reply.status);
      observer?.gatewayCall(operation, 'ok', (performance.now() - started) / 1000);
      return reply;
    } catch (error) {
      const outcome = outcomeOf(error);
      span.setAttribute('gateway.outcome', outcome);
      if (error instanceof GatewayError && error.httpStatus !== undefined) span.setAttribute('http.response.status_code', error.httpStatus);
      observer?.gatewayCall(operation, outcome, (performance.now() - started) / 1000);
      throw error;
    }
  });
}
