import type { Reservation } from '../../core/domain/reservations';

/**
 * Applies reservations as `ReservationChanged` events, through the consumer's own apply function
 * (the one piece of code that changes reservations and their aggregates), `concurrency` at a
 * time: what the queue's consumer instances do, without the queue. Returns how many applied.
 */
export async function applyReservations(
  propertyId: number,
  reservations: readonly Reservation[],
  nowMs: number,
  concurrency = 32,
): Promise<number> {
  const { applyPlatformEvent } = await import('../../lambdas/events/apply-event');
  let next = 0;
  let applied = 0;
  const worker = async () => {
    while (next < reservations.length) {
      const { property_id, ...reservation } = reservations[next++] as Reservation;
      const outcome = await applyPlatformEvent(
        {
          type: 'ReservationChanged',
          detail: { property_id: property_id ?? propertyId, version: 1, reservation },
        },
        nowMs,
        Number.POSITIVE_INFINITY,
      );
      if (outcome === 'applied') applied += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return applied;
}
