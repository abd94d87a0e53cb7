/**
 * An absolute POSIX path that normalising would not change: no `//`, no `.` or `..` component,
 * no trailing `/`. Two such paths compare as strings where path.relative or minimatch would
 * normalise both first (subjects/paths.ts isInside, policy/match.ts globMatchers).
 */
export function isPlainAbsolute(p: string): boolean {
  return p.startsWith('/') && !NOT_PLAIN.test(p);
}

const NOT_PLAIN = /\/\/|\/\.\.?(\/|$)|.\/$/;
