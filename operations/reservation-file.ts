import * as z from 'zod/mini';
import { onFirstUse, reservationDateRules, reservationFields } from '../core/contract/reservation-schema';
import type { Reservation } from '../core/domain/reservations';

/**
 * A row of an import file: a reservation (core/contract/reservation-schema.ts, the rules the
 * platform's `ReservationChanged` events follow too) with the property it belongs to. Its fields
 * and the rules between its dates are checked apart, so a row's every problem is told at once.
 */
const rowFields = () =>
  z.object({
    ...reservationFields(),
    property_id: z
      .number('must be a number')
      .check(z.int('must be an integer'), z.positive('must be positive')),
  });
const reservationSchema = onFirstUse(() => rowFields().check(reservationDateRules()));
const datesSchema = onFirstUse(() => {
  const { booked_at, check_in, check_out } = reservationFields();
  return z.object({ booked_at, check_in, check_out }).check(reservationDateRules());
});

// The schema produces exactly the stored Reservation shape.
const outputIsReservation: z.output<ReturnType<typeof reservationSchema>> extends Reservation ? true : false =
  true;
void outputIsReservation;

const DATE_FIELDS = new Set(['booked_at', 'check_in', 'check_out']);
const described = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((issue) => `${issue.path.join('.') || 'row'}: ${issue.message}`);

/** Every problem of one row: its fields, then the rules between its dates once the dates read. */
function rowProblems(row: unknown): string[] {
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return ['row: must be an object of the fields above'];
  const fields = z.safeParse(rowFields(), row);
  const issues = fields.success ? [] : fields.error.issues;
  const datesRead = !issues.some((issue) => DATE_FIELDS.has(String(issue.path[0])));
  const dates = datesRead ? z.safeParse(datesSchema(), row) : undefined;
  return described([...issues, ...(dates && !dates.success ? dates.error.issues : [])]);
}

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
  /** The row's number, counted from 1 as an editor shows a list; 0 for the file as a whole. */
  readonly row: number;
  readonly message: string;
}

/**
 * Validates a whole import file. Either every row is valid (and ids are unique) or nothing
 * is imported and every problem of every bad row is reported with the row's number (from 1).
 */
export function parseReservationFile(
  rows: unknown,
  propertyId: number,
): { ok: true; reservations: Reservation[] } | { ok: false; errors: RowError[] } {
  if (!Array.isArray(rows))
    return { ok: false, errors: [{ row: 0, message: 'the file must hold a JSON array' }] };
  const errors: RowError[] = [];
  const reservations: Reservation[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row: unknown, index) => {
    const number = index + 1;
    const problems = rowProblems(row);
    const fields = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
    if (typeof fields.property_id === 'number' && fields.property_id !== propertyId && fields.property_id > 0)
      problems.push(`property_id is ${fields.property_id}, but the import is for property ${propertyId}`);
    const id = typeof fields.id === 'string' ? fields.id.trim() : undefined;
    const earlier = id ? seen.get(id) : undefined;
    if (earlier !== undefined) problems.push(`id "${id}" repeats row ${earlier}`);
    if (id && earlier === undefined) seen.set(id, number);
    if (problems.length > 0) {
      errors.push({ row: number, message: problems.join('; ') });
      return;
    }
    const parsed = z.safeParse(reservationSchema(), row);
    if (parsed.success) reservations.push(parsed.data);
    else errors.push({ row: number, message: described(parsed.error.issues).join('; ') });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, reservations };
}
