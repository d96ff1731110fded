/** UTC calendar arithmetic on day numbers (days since 1970-01-01), the unit of every signal. */
export const DAY_MS = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Day number of a `YYYY-MM-DD` date, or undefined when it is not a real calendar date. */
export function parseIsoDate(value: string): number | undefined {
  const match = ISO_DATE.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  return ms / DAY_MS;
}

export function dayOfTimestamp(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM` of a day. */
export function monthOf(day: number): string {
  return isoDate(day).slice(0, 7);
}
