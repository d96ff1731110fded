import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { PlatformEvent } from '../core/contract/platform-events';
import { OPERATOR_EVENT_SOURCE } from '../core/contract/platform-events';
import type { Reservation } from '../core/domain/reservations';
import { TooManyChannelsError } from '../core/domain/reservations';
import type { Property } from '../lambdas/data/properties';
import { findPropertyById, setPropertyUnits } from '../lambdas/data/properties';
import type { ReservationImportPlan } from '../lambdas/data/reservations/import-plan';
import { planReservationImport } from '../lambdas/data/reservations/import-plan';
import { recordOperatorEvent } from './audit';
import { publishPlatformEvents } from './events';
import { OperatorError } from './operator-error';
import { parseReservationFile, parseReservationJson } from './reservation-file';
import type { OperatorTarget } from './target';

/** Largest file accepted in one import; split bigger histories into several files. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
const READ_CHUNK_BYTES = 1024 * 1024;

function tooLarge(file: string): OperatorError {
  return new OperatorError(`${file} is larger than 50 MB; split it into several files.`);
}

function cannotRead(file: string, error: unknown): OperatorError {
  return new OperatorError(
    `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
  );
}

/** Reads at most `limit` + 1 bytes: enough to tell that a file (or a pipe) is over the limit. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, limit + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/** Strict: a byte that is not UTF-8 is refused, never turned into U+FFFD in a reservation id. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of an import file, refused when it is over 50 MB. The size is checked from the
 * file's metadata before anything is read; a file that grows meanwhile, or a pipe, is read no
 * further than one byte past the limit.
 */
async function readImportFile(file: string): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw cannotRead(file, error);
  }
  try {
    if ((await handle.stat()).size > MAX_FILE_BYTES) throw tooLarge(file);
    const bytes = await readAtMost(handle, MAX_FILE_BYTES);
    if (bytes.length > MAX_FILE_BYTES) throw tooLarge(file);
    try {
      return UTF8.decode(bytes);
    } catch {
      throw new OperatorError(`${file} is not UTF-8 text: save it as UTF-8 and import it again.`);
    }
  } catch (error) {
    throw error instanceof OperatorError ? error : cannotRead(file, error);
  } finally {
    await handle.close();
  }
}

/** The file's rows, checked; every problem is an `OperatorError` that names what to fix. */
async function readReservations(file: string, propertyId: number): Promise<Reservation[]> {
  const json = parseReservationJson(await readImportFile(file));
  if (!json.ok) throw new OperatorError(`${file} is not valid JSON: ${json.message}`);
  const parsed = parseReservationFile(json.rows, propertyId);
  if (parsed.ok) return parsed.reservations;
  const shown = parsed.errors
    .slice(0, 50)
    .map((error) => (error.row === 0 ? error.message : `row ${error.row}: ${error.message}`));
  const more = parsed.errors.length > 50 ? `\n...and ${parsed.errors.length - 50} more` : '';
  throw new OperatorError(
    `Nothing was imported: ${parsed.errors.length} invalid row(s) in ${file}:\n${shown.join('\n')}${more}`,
  );
}

async function planImport(propertyId: number, reservations: Reservation[]): Promise<ReservationImportPlan> {
  try {
    return await planReservationImport(propertyId, reservations);
  } catch (error) {
    if (error instanceof TooManyChannelsError) throw new OperatorError(error.message);
    throw error;
  }
}

/**
 * What an import sends: a `ReservationChanged` for each row that differs from what is stored, in
 * the operators' own sequence of versions of its reservation (`OPERATOR_EVENT_SOURCE`), never the
 * platform's: each sequence has one writer (docs/design/events.md#versions). The consumer applies
 * them as it applies the platform's: one piece of code changes reservations and their aggregates.
 */
export function importEvents(plan: ReservationImportPlan): PlatformEvent<'ReservationChanged'>[] {
  return plan.changes.map(({ reservation: { property_id, ...reservation }, version }) => ({
    type: 'ReservationChanged' as const,
    source: OPERATOR_EVENT_SOURCE,
    detail: { property_id, version, reservation },
  }));
}

/**
 * `--units`: the operator's own change, written on the property as the wizard's rename is, with no
 * version (the platform's `PropertyUpdated` stays the only writer of the property's versions):
 * of it and the platform's units, the later to arrive stands (docs/design/events.md#properties).
 */
export async function setImportedUnits(property: Pick<Property, 'id' | 'partnerId'>, units: number) {
  if (!(await setPropertyUnits(property.partnerId, property.id, units)))
    throw new OperatorError(`Property ${property.id} is gone (its host was erased); nothing was imported.`);
}

/**
 * Imports a JSON array of reservations for one property, as events, and `units` on the property.
 * The file's size, its JSON, every row and the channels per month (`MAX_CHANNELS_PER_MONTH`, with
 * those already stored) are checked first: a refused import sends nothing and writes nothing, not
 * even `units`, and every problem of every bad row is reported by its number (from 1). The events
 * apply within seconds; a row the consumer refuses is in `events failed`.
 */
export async function importReservationFile(
  target: Pick<OperatorTarget, 'actor'>,
  input: { propertyId: number; file: string; units?: number },
  nowMs: number,
) {
  const property = await findPropertyById(input.propertyId);
  if (!property)
    throw new OperatorError(
      `No property ${input.propertyId}. Find ids with: npm run admin -- partners show <slug>`,
    );
  const reservations = await readReservations(input.file, input.propertyId);
  const plan = await planImport(input.propertyId, reservations);
  if (input.units !== undefined) await setImportedUnits(property, input.units);
  const { accepted } = await publishPlatformEvents(importEvents(plan));
  const result = { published: plan.changes.length, unchanged: plan.unchanged };
  await recordOperatorEvent(
    target,
    'reservations.imported',
    {
      partnerId: property.partnerId,
      propertyId: property.id,
      details: {
        published: result.published,
        unchanged: result.unchanged,
        events: accepted,
        ...(input.units !== undefined ? { units: input.units } : {}),
      },
    },
    nowMs,
  );
  return result;
}
