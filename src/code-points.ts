/**
 * Cutting a text for a person on a code point's boundary (docs/threat-model.md "What a person is
 * shown", round 32 review S32-2). A string's `slice` counts UTF-16 code units: a cut between the
 * two halves of a character past U+FFFF (an emoji, a CJK extension, a tag character) leaves a lone
 * surrogate, which UTF-16 says is no character (Unicode §3.9, D91) and a screen shows as U+FFFD,
 * and an escaping function then as `\ud83d`: neither what the text said.
 *
 *   head('ab😀', 3)   →  'ab'     (not 'ab\ud83d')
 *   tail('😀cd', 3)   →  'cd'     (not '\ude00cd')
 */

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** Whether a cut of `text` before index `at` would split a surrogate pair. */
export function splitsPair(text: string, at: number): boolean {
  return at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at));
}

/** `at`, or the index one before it when a cut there would split a pair: the end of a head. */
export function headEnd(text: string, at: number): number {
  return splitsPair(text, at) ? at - 1 : at;
}

/** The first `max` code units of `text`, one fewer when the last would be half a pair. */
export function head(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, headEnd(text, max));
}

/** The last `keep` code units of `text`, one fewer when the first would be half a pair. */
export function tail(text: string, keep: number): string {
  if (keep <= 0) return '';
  if (text.length <= keep) return text;
  const start = text.length - keep;
  return text.slice(splitsPair(text, start) ? start + 1 : start);
}
