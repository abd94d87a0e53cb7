/**
 * Schemas made at their first use. The serve bundle's copy of the SDK's types.js made its ~750 zod
 * schemas when evaluated, ~12 ms of CPU beside the booting servers, and a start uses about half of
 * its 159 top-level ones before the first list (docs/performance.md, "Round 26: the ten-server
 * start"). scripts/lazy-schemas.js rewrites that file so that each is made at its first use: inside
 * the file each reference makes the schema itself, so the schemas it composes hold no stand-in; what
 * other modules import is a stand-in (`lazySchema`) until the first touch, which makes the schema,
 * answers with it, and puts it in the exported binding, so later reads get the schema itself. Only
 * what kept the stand-in (a handler the SDK registered with it) goes through it after.
 */

/** The key under which a stand-in answers with the schema it stands for (`made`). */
const MADE = Symbol('lazy schema made');

export function lazySchema<T extends object>(make: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => (key === MADE ? make() : Reflect.get(make(), key)),
    set: (_, key, value) => Reflect.set(make(), key, value),
    has: (_, key) => Reflect.has(make(), key),
    ownKeys: () => Reflect.ownKeys(make()),
    // The stand-in's own target is an empty extensible object: a property reported as not
    // configurable that it does not hold would break the proxy's invariants.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(make(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(make(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(make(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(make()),
  });
}

/**
 * The schema itself for a stand-in, anything else as it is: a schema composed outside types.js
 * (z.union([...])) from a stand-in would go through it at every parse.
 */
export function made<T extends object>(schema: T): T {
  return ((schema as Record<symbol, unknown>)[MADE] as T | undefined) ?? schema;
}

/** `make`'s value, made at the first call. */
export function once<T>(make: () => T): () => T {
  let value: { made: T } | undefined;
  return () => (value ??= { made: make() }).made;
}
