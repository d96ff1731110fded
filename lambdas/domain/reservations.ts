import { dayOfTimestamp, parseIsoDate } from './calendar';

/**
 * A reservation (DESIGN.md "Reservations"). Import files are checked by
 * `reservation-file.ts`; what is stored was checked then, so reading it back needs only
 * `storedReservation`, with no schema library on the pricing-signals path.
 */
export interface Reservation {
  readonly id: string;
  readonly property_id: number;
  readonly channel: string;
  /** UTC ISO 8601, normalised on import. */
  readonly booked_at: string;
  readonly check_in: string;
  readonly check_out: string;
  readonly status: 'confirmed' | 'cancelled';
}

/** A stored reservation read back, or undefined if the item is not one. */
export function storedReservation(value: unknown): Reservation | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, property_id, channel, booked_at, check_in, check_out, status } = value as Record<
    string,
    unknown
  >;
  if (typeof id !== 'string' || typeof property_id !== 'number' || typeof channel !== 'string')
    return undefined;
  if (typeof booked_at !== 'string' || typeof check_in !== 'string' || typeof check_out !== 'string')
    return undefined;
  if (status !== 'confirmed' && status !== 'cancelled') return undefined;
  return { id, property_id, channel, booked_at, check_in, check_out, status };
}

/** What one confirmed reservation adds to the signals; cancelled ones add nothing. */
export interface ReservationContribution {
  readonly bookedDay: number;
  readonly channel: string;
  readonly leadDays: number;
  readonly stayNights: number;
  /** Nights occupied: `firstNight <= night < endNight`. */
  readonly firstNight: number;
  readonly endNight: number;
}

export function contributionOf(reservation: Reservation): ReservationContribution | undefined {
  if (reservation.status !== 'confirmed') return undefined;
  const checkIn = parseIsoDate(reservation.check_in);
  const checkOut = parseIsoDate(reservation.check_out);
  if (checkIn === undefined || checkOut === undefined) return undefined;
  const bookedDay = dayOfTimestamp(Date.parse(reservation.booked_at));
  return {
    bookedDay,
    channel: reservation.channel,
    leadDays: checkIn - bookedDay,
    stayNights: checkOut - checkIn,
    firstNight: checkIn,
    endNight: checkOut,
  };
}

const FIELDS = ['id', 'property_id', 'channel', 'booked_at', 'check_in', 'check_out', 'status'] as const;

/** Same reservation, same fields: re-importing it changes nothing. */
export function sameReservation(a: Reservation, b: Reservation): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}
