/**
 * Spans through @opentelemetry/api: a no-op until the shop installs an OpenTelemetry SDK. One
 * span per pay request, gateway call, notification, sweeper batch and hook delivery; attributes
 * are bounded and card-free (operation, method, status), never a card number or the shopper's data.
 *
 * Hooks run later, from the hook outbox: the trace context of the change that owed the call is
 * stored in the outbox entry's payload (`traceparent`, W3C format) and the delivery's span is
 * started in it, so a shop's own spans inside a hook join the payment's trace.
 */
import type { ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Span } from '@opentelemetry/api';

export const TRACER_NAME = 'acquiring-checkout-kit';

const tracer = () => trace.getTracer(TRACER_NAME);

/** Runs `fn` inside a new span; an error ends the span as failed and is rethrown. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error && 'code' in error ? String(error.code) : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** `inSpan` for a gateway request (kind CLIENT). */
export const inClientSpan = <T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> =>
  inSpan(name, attributes, fn, SpanKind.CLIENT);

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The active span's context as a W3C `traceparent`, or undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!trace.isSpanContextValid(span.spanContext())) return undefined;
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** Adds the active trace context to outbox payloads, so their delivery joins this trace. */
export function withTraceContext<E extends { payload: Record<string, unknown> }>(entries: E[]): E[] {
  const traceparent = currentTraceparent();
  return traceparent === undefined ? entries : entries.map((e) => ({ ...e, payload: { ...e.payload, traceparent } }));
}

/** Runs `fn` in a span that continues the trace a stored `traceparent` names (without one: in the active span's trace, or untraced). */
export function inCarriedSpan<T>(traceparent: unknown, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const [, traceId, spanId, flags] = (typeof traceparent === 'string' ? TRACEPARENT_RE.exec(traceparent) : null) ?? [];
  if (traceId === undefined || spanId === undefined || flags === undefined) {
    // Nothing was traced when the change was stored (no SDK): the hook is called as it is, with
    // no extra turns between its return and the outbox entry's completion.
    return trace.getActiveSpan() === undefined ? fn() : inSpan(name, attributes, fn);
  }
  const parent = trace.setSpanContext(context.active(), {
    traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true,
  });
  return context.with(parent, () => inSpan(name, attributes, fn));
}

/**
 * Express middleware: the rest of the request runs inside a span named `name`, ended when the
 * answer is sent (status ≥ 500 marks it failed).
 */
export function requestSpan(name: string): (req: unknown, res: ServerResponse, next: () => void) => void {
  return (_req, res, next) => {
    const span = tracer().startSpan(name, { kind: SpanKind.SERVER });
    const end = (): void => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('close', end);
    context.with(trace.setSpan(context.active(), span), next);
  };
}
