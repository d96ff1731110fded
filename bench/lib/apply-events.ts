import type { Reservation } from '../../core/domain/reservations';

/** Events per call: a hundred bookings of one property fill about one transaction. */
const GROUP = 100;

/**
 * Applies reservations as `ReservationChanged` events (version 1) through the consumer's own
 * function for a property's events delivered together (`applyReservationEvents`: the one piece of
 * code that changes reservations and their aggregates), `GROUP` at a time, by `workers` side by
 * side, each on its own stretch of the list so that they seldom touch the same month's items.
 * Returns how many applied.
 */
export async function applyReservations(
  propertyId: number,
  reservations: readonly Reservation[],
  nowMs: number,
  workers = 4,
): Promise<number> {
  const { applyReservationEvents } = await import('../../lambdas/events/apply-event');
  const stretch = Math.ceil(reservations.length / workers);
  let applied = 0;
  const work = async (from: number) => {
    const to = Math.min(reservations.length, from + stretch);
    for (let start = from; start < to; start += GROUP) {
      const events = reservations
        .slice(start, Math.min(to, start + GROUP))
        .map(({ property_id, ...reservation }) => ({
          type: 'ReservationChanged' as const,
          detail: { property_id: property_id ?? propertyId, version: 1, reservation },
        }));
      const results = await applyReservationEvents(events, propertyId, nowMs);
      applied += results.filter((result) => result === 'applied').length;
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, index) => work(index * stretch)));
  return applied;
}
