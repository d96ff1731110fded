import type { Reservation } from '../../../core/domain/reservations';
import {
  channelCapBreaches,
  channelsBookedByMonth,
  sameReservation,
  TooManyChannelsError,
} from '../../../core/domain/reservations';
import { OPERATOR_EVENT_SOURCE } from '../../../core/event-delivery';
import { getStoredChannels, getStoredReservations } from './stored';

/** A row of an import whose content differs from what is stored, and the version it gets. */
interface ReservationImportChange {
  readonly reservation: Reservation;
  /**
   * One above the version the operators' imports last applied to the reservation (1 for the first):
   * what its event carries, in the operators' own sequence, never the platform's.
   */
  readonly version: number;
}

/** What an import will publish: decided from what is stored, and checked, before anything is sent. */
export interface ReservationImportPlan {
  readonly propertyId: number;
  readonly changes: readonly ReservationImportChange[];
  /** Rows identical to the stored ones. */
  readonly unchanged: number;
}

/**
 * Reads what is stored for these rows and decides which of them change anything, each with the
 * next version of its reservation in the operators' sequence. Writes nothing. Throws
 * `TooManyChannelsError` when the rows would take a month of the property over
 * `MAX_CHANNELS_PER_MONTH` channels (counting those already stored), so an import that cannot fit
 * is refused before its first event, every time.
 * Operator tooling only: it reads with BatchGetItem, which no function may call.
 */
export async function planReservationImport(
  propertyId: number,
  reservations: readonly Reservation[],
): Promise<ReservationImportPlan> {
  const stored = await getStoredReservations(
    propertyId,
    reservations.map((reservation) => reservation.id),
  );
  const changes: ReservationImportChange[] = [];
  for (const next of reservations) {
    const previous = stored.get(next.id);
    if (!previous || !sameReservation(previous.reservation, next))
      changes.push({
        reservation: next,
        version: (previous?.versions[OPERATOR_EVENT_SOURCE].version ?? 0) + 1,
      });
  }
  const added = channelsBookedByMonth(changes.map((change) => change.reservation));
  const storedChannels = await getStoredChannels(propertyId, [...added.keys()]);
  const breaches = channelCapBreaches(storedChannels, added);
  if (breaches.length > 0) throw new TooManyChannelsError(propertyId, breaches);
  return { propertyId, changes, unchanged: reservations.length - changes.length };
}
