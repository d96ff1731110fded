import { describe, expect, it } from 'vitest';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { MAX_CHANNELS_PER_MONTH } from '../../core/domain/reservations';
import { RefusedEventError } from '../../lambdas/data/event-versions';
import { applyReservationChanges } from '../../lambdas/data/reservations/apply';
import { aggregatesOfProperty } from '../support/aggregates';
import { approvedPartner, sponsoredProperty } from '../support/partners';
import { importFolder, importInProcess } from '../support/reservation-import';

/*
 * The channel cap across Lambda instances: each instance remembers the channels it wrote in a month,
 * which is only part of what the month holds once other instances applied its other bookings. This
 * test process plays one instance (it applies some channels itself); the local server's consumer
 * plays the others (the import's events go through it).
 */

const { writeRows } = importFolder();

describe('the channel cap, judged by one instance of several', () => {
  it('refuses a new channel that would go over the cap, though this instance wrote only some of them', async () => {
    const partner = await approvedPartner();
    const { propertyId } = await sponsoredProperty(partner.id);
    const day = Math.floor(Date.now() / DAY_MS) - 3;
    const booking = (id: string, channel: string): Reservation => ({
      id,
      property_id: propertyId,
      channel,
      booked_at: new Date(day * DAY_MS + 36_000_000).toISOString(),
      check_in: isoDate(day + 10),
      check_out: isoDate(day + 11),
      status: 'confirmed',
    });
    const event = (reservation: Reservation) => ({
      detail: { property_id: propertyId, version: 1, reservation },
      fingerprint: JSON.stringify(reservation),
    });
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => `Channel ${index}`);
    const half = Math.floor(channels.length / 2);
    // This instance applies the first half of the month's channels, and so remembers them...
    const mine = await applyReservationChanges(
      channels.slice(0, half).map((channel, index) => event(booking(`mine-${index}`, channel))),
      propertyId,
      new Date().toISOString(),
    );
    expect(mine.every((result) => result === 'applied')).toBe(true);
    // ...other instances apply the rest.
    const others = await importInProcess(
      propertyId,
      await writeRows(channels.slice(half).map((channel, index) => booking(`theirs-${index}`, channel))),
    );
    expect(others.code).toBe(0);

    const [over] = await applyReservationChanges(
      [event(booking('over', 'One channel too many'))],
      propertyId,
      new Date().toISOString(),
    );

    expect(over).toBeInstanceOf(RefusedEventError);
    expect(String((over as RefusedEventError).message)).toContain(
      `${MAX_CHANNELS_PER_MONTH + 1} booking channels`,
    );
    const { stored } = await aggregatesOfProperty(propertyId);
    expect(JSON.stringify(stored)).not.toContain('One channel too many');
  });
});
