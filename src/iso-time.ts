/**
 * `new Date(ms).toISOString()` by arithmetic, for the audit's and the pins' times. V8's own
 * formatting sets up the time zone on its first use in a process (ICU's zone data: 1–8 ms of CPU
 * and ~0.9 MiB of the node binary's pages), which a gateway paid on its first call
 * (docs/performance.md, "Cold start"). Times before 1970 or after 9999 go to V8.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= LAST) return new Date(ms).toISOString();
  // The audit asks for the time of every record: the text up to the second is made once a second.
  const inSecond = ms % 1000;
  if (ms - inSecond !== second) {
    second = ms - inSecond;
    secondText = toSecond(second);
  }
  return `${secondText}.${pad(inSecond, 3)}Z`;
}

/** The last second `isoTime` wrote, and its text up to the seconds (`2026-11-27T02:40:05`). */
let second = NaN;
let secondText = '';

function toSecond(ms: number): string {
  const days = Math.floor(ms / DAY);
  const inDay = ms - days * DAY;
  // The civil date of a day number (days since 1970-01-01) in the proleptic Gregorian calendar,
  // counted in 400-year eras from 0000-03-01 (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(inDay / 3_600_000);
  const minutes = Math.floor(inDay / 60_000) % 60;
  const seconds = Math.floor(inDay / 1000) % 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
}

const DAY = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from there on, toISOString writes a six-digit signed year. */
const LAST = 253_402_300_800_000;

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
