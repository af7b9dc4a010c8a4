/**
 * Zod schemas on hot paths, compiled by zod itself (`z.compile`, zod ≥ 4.5): the schema walked
 * once into generated code that checks a valid input without the per-node dispatch and
 * allocation of the runtime parser, falling back to that parser (the same issues, the same
 * messages) when the input is refused. Results and errors are zod's own either way; only the
 * time differs. Per schema rather than zod's global mode, which would compile the shop's own
 * schemas too. Where code generation is unavailable zod keeps the runtime parser.
 */
import { z } from 'zod';

const clones = new WeakMap<z.ZodType, z.ZodType>();

/** `schema` compiled, once per schema object: safe to call on every parse. */
export function compiled<S extends z.ZodType>(schema: S): S {
  let clone = clones.get(schema);
  if (clone === undefined) {
    clone = z.compile(schema);
    clones.set(schema, clone);
    // A compiled clone asked again is itself.
    clones.set(clone, clone);
  }
  return clone as S;
}
