import type { z } from 'zod';
import { configSchemas } from './schema.js';

/**
 * "Did you mean" for a config: the keys the schema knows at a key path, and the closest of a few
 * candidates to what was written (a typo, a different case, a missing or extra letter).
 *
 *   closest('permisions', ['mcpServers', 'permissions', 'tools']) → 'permissions'
 *   closest('banana', ['read', 'write'])                           → null
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const lower = word.toLowerCase();
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (best === null || distance < best.distance) best = { candidate, distance };
  }
  // Up to a third of the word may differ (at least one letter): closer than that is a guess.
  return best !== null && best.distance <= Math.max(1, Math.floor(word.length / 3)) ? best.candidate : null;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match === null ? '' : ` (did you mean ${JSON.stringify(match)}?)`;
}

/** The keys the config schema accepts in the object at `path` (record keys are any name: skipped). */
export function knownKeys(path: ReadonlyArray<string | number>): string[] {
  let schemas: z.core.$ZodType[] = [configSchemas().config];
  for (const key of path) schemas = schemas.flatMap((schema) => child(unwrap(schema), key));
  return [...new Set(schemas.flatMap(keysOf))];
}

function keysOf(schema: z.core.$ZodType): string[] {
  const def = unwrap(schema)._zod.def as { type: string; shape?: Record<string, unknown>; options?: z.core.$ZodType[] };
  if (def.type === 'union') return (def.options ?? []).flatMap(keysOf);
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType };
  return (def.type === 'default' || def.type === 'optional' || def.type === 'nullable') && def.innerType ? unwrap(def.innerType) : schema;
}

function child(schema: z.core.$ZodType, key: string | number): z.core.$ZodType[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; valueType?: z.core.$ZodType; element?: z.core.$ZodType; options?: z.core.$ZodType[] };
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => child(unwrap(option), key));
  if (def.type === 'object') return def.shape?.[key] ? [def.shape[key]] : [];
  if (def.type === 'record' && def.valueType) return [def.valueType];
  if (def.type === 'array' && def.element) return [def.element];
  return [];
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
