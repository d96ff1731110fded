import * as z from 'zod/mini';
import { dayOfTimestamp, parseIsoDate } from '../domain/calendar';
import {
  MAX_CHANNEL_LENGTH,
  MAX_LEAD_TIME_DAYS,
  MAX_STAY_NIGHTS,
  RESERVATION_DATE_RANGE,
} from '../domain/reservations';
import { isOneLine } from '../domain/text';

/*
 * The rules of one reservation (docs/design/pricing-signals.md), wherever it comes from: a row of
 * an operator's import file (with its `property_id`) and the `reservation` of the platform's
 * `ReservationChanged` event (docs/design/events.md). zod/mini: the event consumer runs it.
 */

const FIRST_DAY = parseIsoDate(RESERVATION_DATE_RANGE.from) ?? 0;
const LAST_DAY = parseIsoDate(RESERVATION_DATE_RANGE.to) ?? 0;
const inRange = (day: number) => day >= FIRST_DAY && day <= LAST_DAY;
const RANGE = `between ${RESERVATION_DATE_RANGE.from} and ${RESERVATION_DATE_RANGE.to}`;

/** Longest reservation id. */
const MAX_RESERVATION_ID_LENGTH = 128;

/** Made on first use and kept: schemas are built when a parse needs them, not when a bundle loads. */
export function onFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/** A trimmed, non-empty line of text of at most `max` characters (names, ids, channels). */
export function oneLineText(max: number, oneLineMessage = 'must be one line of text') {
  return z
    .string('must be a string')
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
      z.refine(isOneLine, oneLineMessage),
    );
}

/**
 * The fields of a reservation but its property; unknown fields are dropped, never stored. Built on
 * first use: the event consumer's cold start does not pay for schemas until an event needs them
 * (docs/design/README.md#cold-start-is-billed).
 */
export const reservationFields = onFirstUse(() => {
  const isoDate = z.string('must be a date string').check(
    z.refine((value) => parseIsoDate(value) !== undefined, 'must be a calendar date as YYYY-MM-DD'),
    z.refine((value) => inRange(parseIsoDate(value) ?? FIRST_DAY), `must be ${RANGE}`),
  );
  return {
    id: oneLineText(
      MAX_RESERVATION_ID_LENGTH,
      'must be one line of text (no control or bidi-override characters)',
    ),
    channel: oneLineText(MAX_CHANNEL_LENGTH),
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
  };
});

interface ReservationDates {
  readonly booked_at: string;
  readonly check_in: string;
  readonly check_out: string;
}

/** The rules between a reservation's dates: booked in range, lead time and stay within bounds. */
export const reservationDateRules = onFirstUse(() => z.superRefine(checkReservationDates));

function checkReservationDates(
  reservation: ReservationDates,
  context: z.core.$RefinementCtx<ReservationDates>,
): void {
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
}
