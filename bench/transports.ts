/**
 * The simple alternatives to the gateway client's own node:http transport, for the benchmark's
 * comparison: undici's request API on one keep-alive Agent, and the global fetch (itself undici,
 * keep-alive by default), both through the client's `fetch` option.
 */
import { Agent, request } from 'undici';

export async function transportFetch(kind: 'undici' | 'fetch'): Promise<typeof fetch> {
  if (kind === 'fetch') return globalThis.fetch;
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  // Only what the client's fetch transport reads of a Response: status, headers, text().
  const viaUndici = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const reply = await request(String(input instanceof Request ? input.url : input), {
      dispatcher,
      method: 'POST',
      headers: init?.headers as Record<string, string>,
      body: init?.body as string,
      signal: init?.signal ?? null,
    });
    const text = await reply.body.text();
    const contentType = reply.headers['content-type'];
    return new Response(text, { status: reply.statusCode, headers: { 'content-type': Array.isArray(contentType) ? contentType.join(', ') : contentType ?? '' } });
  };
  return Promise.resolve(viaUndici);
}
