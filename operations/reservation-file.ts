import * as z from 'zod/mini';
import { reservationDateRules, reservationFields } from '../core/contract/reservation-schema';
import type { Reservation } from '../core/domain/reservations';

/**
 * A row of an import file: a reservation (core/contract/reservation-schema.ts, the rules the
 * platform's `ReservationChanged` events follow too) with the property it belongs to.
 */
const reservationSchema = z
  .object({
    ...reservationFields(),
    property_id: z
      .number('must be a number')
      .check(z.int('must be an integer'), z.positive('must be positive')),
  })
  .check(reservationDateRules());

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
