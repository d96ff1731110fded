import { dayOfTimestamp, monthOf, parseIsoDate } from './calendar';

/**
 * A reservation (docs/design/pricing-signals.md). Import files are checked by
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

/** Longest channel name accepted on import, in UTF-16 code units (JavaScript string length). */
export const MAX_CHANNEL_LENGTH = 64;

/** Longest stay accepted on import (two years): bounds the aggregate items one row touches. */
export const MAX_STAY_NIGHTS = 730;

/**
 * Furthest a check-in may be from its booking day, either way (ten years): the published range of
 * `avg_lead_time_days`, which a mean of lead times inside it can never leave.
 */
export const MAX_LEAD_TIME_DAYS = 3_650;

/** Dates a reservation may carry (booked, check-in, check-out): anything outside is a data error. */
export const RESERVATION_DATE_RANGE = { from: '2000-01-01', to: '2099-12-31' } as const;

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

/** What a reservation adds to the aggregates; undefined when it adds nothing (cancelled). */
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

/**
 * Distinct booking channels one property may have in one month (by `booked_at`, UTC). The
 * response sets it: `source_mix` may hold at most 256 channels (the OpenAPI document), and a
 * 365-day window reads up to 13 months, so 13 × 19 = 247 ≤ 256. It also bounds the month's
 * `BOOKED#<YYYY-MM>` item, which holds a counter per day and channel, under DynamoDB's 400 KB:
 * the worst case is computed from the counters' declaration (`DAY_COUNTERS`,
 * lambdas/data/reservations/layout.ts) and held to a third of the limit, so that three imports
 * racing past the check at once still fit (test/unit/reservations.test.ts, "the size of an
 * aggregate item").
 * A channel counts for its month once it has been stored there, also after its bookings were
 * cancelled or moved: its counters stay in the item (at 0) and still take their bytes.
 */
export const MAX_CHANNELS_PER_MONTH = 19;

/** Channels per month (`YYYY-MM`); a Map, so no channel name can collide with an object's own properties. */
export type ChannelsByMonth = Map<string, Set<string>>;

/** A month in which an import would leave more channels than `MAX_CHANNELS_PER_MONTH`. */
export interface ChannelCapBreach {
  readonly month: string;
  readonly channels: number;
}

/** Months named in the message; a file of many years could otherwise fill the screen. */
const SHOWN_BREACHES = 12;

/** The import refused because of `MAX_CHANNELS_PER_MONTH`; its message is for the operator. */
export class TooManyChannelsError extends Error {
  /** What is over the cap, without what an importer should do about it. */
  readonly overCap: string;

  constructor(
    readonly propertyId: number,
    readonly breaches: readonly ChannelCapBreach[],
  ) {
    const months = breaches
      .slice(0, SHOWN_BREACHES)
      .map((breach) => `${breach.channels} booking channels in ${breach.month}`);
    if (breaches.length > SHOWN_BREACHES)
      months.push(`and ${breaches.length - SHOWN_BREACHES} more months over the cap`);
    const overCap = `property ${propertyId} would have ${months.join(', ')}; at most ${MAX_CHANNELS_PER_MONTH} are allowed per property and month`;
    super(
      `Nothing was imported: ${overCap} (the channels already imported for that month count too). ` +
        'Map the rare channels to one name, such as "Other", and import the file again.',
    );
    this.overCap = overCap;
    this.name = 'TooManyChannelsError';
  }
}

function addChannel(into: ChannelsByMonth, month: string, channel: string): void {
  let channels = into.get(month);
  if (!channels) {
    channels = new Set();
    into.set(month, channels);
  }
  channels.add(channel);
}

/** The channels that confirmed reservations book into each month; cancelled ones book none. */
export function channelsBookedByMonth(reservations: readonly Reservation[]): ChannelsByMonth {
  const channels: ChannelsByMonth = new Map();
  for (const reservation of reservations) {
    const contribution = contributionOf(reservation);
    if (contribution) addChannel(channels, monthOf(contribution.bookedDay), contribution.channel);
  }
  return channels;
}

/**
 * The months, in order, where the added channels that are not stored yet would take the month
 * over `cap`. Empty when the import fits. Bookings of channels a month already has are never
 * refused, so a month stored over the cap (before it existed) can still be corrected.
 */
export function channelCapBreaches(
  stored: ReadonlyMap<string, ReadonlySet<string>>,
  added: ReadonlyMap<string, ReadonlySet<string>>,
  cap: number = MAX_CHANNELS_PER_MONTH,
): ChannelCapBreach[] {
  const breaches: ChannelCapBreach[] = [];
  for (const [month, channels] of added) {
    const storedChannels = stored.get(month) ?? new Set<string>();
    const newChannels = [...channels].filter((channel) => !storedChannels.has(channel));
    const total = storedChannels.size + newChannels.length;
    if (newChannels.length > 0 && total > cap) breaches.push({ month, channels: total });
  }
  return breaches.sort((a, b) => (a.month < b.month ? -1 : 1));
}
