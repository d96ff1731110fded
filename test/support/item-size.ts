import { isoDate, parseIsoDate } from '../../core/domain/calendar';
import { propertyPartition } from '../../core/partitions';
import type { AggregateFamily, DayCounter } from '../../lambdas/data/reservations/layout';
import { counterAttribute, DAY_COUNTERS, monthSk } from '../../lambdas/data/reservations/layout';

/**
 * DynamoDB refuses an item over 400 KB, in binary units (1 KB = 1,024 bytes:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html).
 */
export const MAX_ITEM_BYTES = 400 * 1024;

type Value = string | number | bigint;

/** The significant digits of a number's decimal form: leading and trailing zeros trimmed. */
function significantDigits(value: number | bigint): number {
  const digits =
    typeof value === 'bigint'
      ? (value < 0n ? -value : value).toString()
      : Math.abs(value).toExponential().split('e')[0]?.replace('.', '');
  return (digits ?? '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * A number's size as DynamoDB counts it: 1 byte per two significant digits (at most 38), plus 1.
 * The documentation calls this approximate; a negative number is counted one byte more here (its
 * sign), so no number is counted smaller than it may be stored.
 */
export function numberBytes(value: number | bigint): number {
  return Math.ceil(significantDigits(value) / 2) + 1 + (value < 0 ? 1 : 0);
}

/**
 * An item's size as DynamoDB counts it against the 400 KB limit: for each attribute the UTF-8 bytes
 * of its name plus its value's size, a string's UTF-8 bytes or `numberBytes`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 * Aggregate items hold strings and numbers only; any other value is refused, not guessed at.
 */
export function itemBytes(item: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name, 'utf8');
    if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'number' || typeof value === 'bigint') bytes += numberBytes(value);
    else throw new Error(`itemBytes counts strings and numbers, not the ${typeof value} of ${name}`);
  }
  return bytes;
}

/** The largest number DynamoDB stores, by size: 38 significant digits, negative. */
export const LARGEST_NUMBER = -(10n ** 38n - 1n);

/**
 * A key of `length` UTF-16 code units that takes the most UTF-8 bytes a string of that length can
 * (3 per code unit: a surrogate pair is 4 bytes for 2 units), different for each `index`.
 */
export function longestKey(length: number, index: number): string {
  return `${'€'.repeat(length - 1)}${String.fromCharCode(0x4e00 + index)}`;
}

/** A month of 31 days: its first day, and each of its days. */
const OCTOBER_2026 = parseIsoDate('2026-10-01') ?? Number.NaN;
export const DAYS_OF_A_LONGEST_MONTH = Array.from({ length: 31 }, (_, index) => OCTOBER_2026 + index);

/**
 * The largest month item of a family that `DAY_COUNTERS` allows: the longest partition key (a
 * property id of 16 digits), every counter of the family on each of 31 days, a keyed counter with
 * its most keys per month (times `racingImports`, imports that passed the cap's check at once),
 * each of the longest key, and every value the largest number.
 */
export function worstCaseAggregateItem(
  family: AggregateFamily,
  { racingImports = 1 }: { racingImports?: number } = {},
): Record<string, Value> {
  const item: Record<string, Value> = {
    PK: propertyPartition(Number.MAX_SAFE_INTEGER),
    SK: monthSk(family, OCTOBER_2026),
  };
  const counters: readonly DayCounter[] = Object.values(DAY_COUNTERS);
  for (const counter of counters) {
    if (counter.family !== family) continue;
    const bound = counter.key;
    const keys = bound
      ? Array.from({ length: bound.perMonth * racingImports }, (_, index) => longestKey(bound.longest, index))
      : [undefined];
    for (const day of DAYS_OF_A_LONGEST_MONTH)
      for (const key of keys) item[counterAttribute(counter, isoDate(day), key)] = LARGEST_NUMBER;
  }
  return item;
}
