import { createRequire } from 'node:module';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';

// The transport loads undici's Agent and errors from their own modules rather than the index
// (less live heap): they must stay the very objects the index exports.
const requireUndici = createRequire(import.meta.url);

describe('the undici modules the gateway transport loads', () => {
  it('are the Agent and errors undici exports', () => {
    expect(requireUndici('undici/lib/dispatcher/agent')).toBe(undici.Agent);
    expect(requireUndici('undici/lib/core/errors')).toBe(undici.errors);
  });

  it('load without the index: a dispatcher and error classes of their own', () => {
    const Agent = requireUndici('undici/lib/dispatcher/agent') as typeof undici.Agent;
    const errors = requireUndici('undici/lib/core/errors') as typeof undici.errors;
    const agent = new Agent();
    expect(typeof agent.dispatch).toBe('function');
    expect(new errors.InvalidArgumentError('x')).toBeInstanceOf(Error);
    return agent.close();
  });
});
