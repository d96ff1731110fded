import { readFile } from 'node:fs/promises';
import { findPropertyById, updateProperty } from '../../lambdas/data/properties';
import { importReservations } from '../../lambdas/data/reservations';
import { parseReservationFile } from '../../lambdas/domain/reservation-file';
import { OperatorError } from './operator-error';

/** Largest file accepted in one import; split bigger histories into several files. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

/**
 * Imports a JSON array of reservations for one property. Every row is checked first; one bad
 * row stops the import before anything is written, and every bad row is reported by index.
 */
export async function importReservationFile(
  input: { propertyId: number; file: string; units?: number },
  nowMs: number,
) {
  const property = await findPropertyById(input.propertyId);
  if (!property)
    throw new OperatorError(
      `No property ${input.propertyId}. Find ids with: npm run admin -- partners show <slug>`,
    );

  let text: string;
  try {
    text = await readFile(input.file, 'utf8');
  } catch (error) {
    throw new OperatorError(
      `Cannot read ${input.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (Buffer.byteLength(text) > MAX_FILE_BYTES)
    throw new OperatorError(`${input.file} is larger than 50 MB; split it into several files.`);
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new OperatorError(`${input.file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = parseReservationFile(rows, input.propertyId);
  if (!parsed.ok) {
    const shown = parsed.errors
      .slice(0, 50)
      .map((error) => (error.index < 0 ? error.message : `row ${error.index}: ${error.message}`));
    const more = parsed.errors.length > 50 ? `\n...and ${parsed.errors.length - 50} more` : '';
    throw new OperatorError(
      `Nothing was imported: ${parsed.errors.length} invalid row(s) in ${input.file}:\n${shown.join('\n')}${more}`,
    );
  }
  if (input.units !== undefined)
    await updateProperty(property.partnerId, property.id, { units: input.units });
  return importReservations(input.propertyId, parsed.reservations, nowMs);
}
