import * as z from 'zod/mini';
import { dayOfTimestamp, parseIsoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import {
  MAX_CHANNEL_LENGTH,
  MAX_LEAD_TIME_DAYS,
  MAX_STAY_NIGHTS,
  RESERVATION_DATE_RANGE,
} from '../../core/domain/reservations';
import { isOneLine } from '../../core/domain/text';

const FIRST_DAY = parseIsoDate(RESERVATION_DATE_RANGE.from) ?? 0;
const LAST_DAY = parseIsoDate(RESERVATION_DATE_RANGE.to) ?? 0;
const inRange = (day: number) => day >= FIRST_DAY && day <= LAST_DAY;
const RANGE = `between ${RESERVATION_DATE_RANGE.from} and ${RESERVATION_DATE_RANGE.to}`;

const isoDate = z.string('must be a date string').check(
  z.refine((value) => parseIsoDate(value) !== undefined, 'must be a calendar date as YYYY-MM-DD'),
  z.refine((value) => inRange(parseIsoDate(value) ?? FIRST_DAY), `must be ${RANGE}`),
);

/**
 * A reservation as imported (docs/design/pricing-signals.md); unknown fields are dropped, not stored.
 * zod/mini keeps the Lambda bundles small (full zod adds ~30 ms to a cold start).
 */
const reservationSchema = z
  .object({
    id: z
      .string('must be a string')
      .check(
        z.trim(),
        z.minLength(1, 'must not be empty'),
        z.maxLength(128, 'must be at most 128 characters'),
        z.refine(isOneLine, 'must be one line of text (no control or bidi-override characters)'),
      ),
    property_id: z
      .number('must be a number')
      .check(z.int('must be an integer'), z.positive('must be positive')),
    channel: z
      .string('must be a string')
      .check(
        z.trim(),
        z.minLength(1, 'must not be empty'),
        z.maxLength(MAX_CHANNEL_LENGTH, `must be at most ${MAX_CHANNEL_LENGTH} characters`),
        z.refine(isOneLine, 'must be one line of text'),
      ),
    booked_at: z.pipe(
      z.iso.datetime({
        offset: true,
        error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-05-01T10:00:00Z',
      }),
      z.transform((value: string) => new Date(value).toISOString()),
    ),
    check_in: isoDate,
    check_out: isoDate,
    status: z.enum(['confirmed', 'cancelled'], 'must be "confirmed" or "cancelled"'),
  })
  .check(
    z.superRefine((reservation, context) => {
      const checkIn = parseIsoDate(reservation.check_in);
      const checkOut = parseIsoDate(reservation.check_out);
      if (checkIn === undefined || checkOut === undefined) return;
      const bookingDay = dayOfTimestamp(Date.parse(reservation.booked_at));
      if (!inRange(bookingDay)) {
        context.issues.push({
          code: 'custom',
          path: ['booked_at'],
          message: `must be ${RANGE} (UTC)`,
          input: reservation.booked_at,
        });
        return;
      }
      const leadTime = checkIn - bookingDay;
      if (Math.abs(leadTime) > MAX_LEAD_TIME_DAYS) {
        context.issues.push({
          code: 'custom',
          path: ['check_in'],
          message: `is ${Math.abs(leadTime)} days ${leadTime > 0 ? 'after' : 'before'} the booking day; at most ${MAX_LEAD_TIME_DAYS} either way`,
          input: reservation.check_in,
        });
      }
      if (checkOut <= checkIn) {
        context.issues.push({
          code: 'custom',
          path: ['check_out'],
          message: 'must be after check_in',
          input: reservation.check_out,
        });
      } else if (checkOut - checkIn > MAX_STAY_NIGHTS) {
        context.issues.push({
          code: 'custom',
          path: ['check_out'],
          message: `stay is longer than ${MAX_STAY_NIGHTS} nights`,
          input: reservation.check_out,
        });
      }
    }),
  );

// The schema produces exactly the stored Reservation shape.
const outputIsReservation: z.output<typeof reservationSchema> extends Reservation ? true : false = true;
void outputIsReservation;

/** U+FEFF: some editors and spreadsheet exports begin UTF-8 files with it. */
const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The JSON value of an import file's text, or why it is not JSON. A leading byte order mark is
 * ignored (it is not part of the JSON); one anywhere else is an error, as JSON says.
 */
export function parseReservationJson(
  text: string,
): { ok: true; rows: unknown } | { ok: false; message: string } {
  const json = text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
  try {
    return { ok: true, rows: JSON.parse(json) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export interface RowError {
  readonly index: number;
  readonly message: string;
}

/**
 * Validates a whole import file. Either every row is valid (and ids are unique) or nothing
 * is imported and each bad row is reported with its index.
 */
export function parseReservationFile(
  rows: unknown,
  propertyId: number,
): { ok: true; reservations: Reservation[] } | { ok: false; errors: RowError[] } {
  if (!Array.isArray(rows))
    return { ok: false, errors: [{ index: -1, message: 'the file must hold a JSON array' }] };
  const errors: RowError[] = [];
  const reservations: Reservation[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row, index) => {
    const parsed = z.safeParse(reservationSchema, row);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'row'}: ${issue.message}`);
      errors.push({ index, message: issues.join('; ') });
      return;
    }
    const reservation = parsed.data;
    if (reservation.property_id !== propertyId) {
      errors.push({
        index,
        message: `property_id is ${reservation.property_id}, but the import is for property ${propertyId}`,
      });
    }
    const earlier = seen.get(reservation.id);
    if (earlier !== undefined)
      errors.push({ index, message: `id "${reservation.id}" repeats row ${earlier}` });
    seen.set(reservation.id, index);
    reservations.push(reservation);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, reservations };
}
