import { describe, expect, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { MAX_CHANNELS_PER_MONTH } from '../../core/domain/reservations';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { applyPlatformEvent } from '../../lambdas/events/apply-event';
import { apiGet, sponsoredProperty } from '../support/partners';
import {
  at,
  failedEventsAbout,
  partner,
  preparePlatformEvents,
  publish,
  racing,
  seatsOfHost,
  usageOf,
} from '../support/platform-events';

preparePlatformEvents();

describe('seats', () => {
  it('follow SeatActivated and SeatDeactivated; duplicates and older versions change nothing', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });
    const before = await usageOf(partner.key);
    const seat = (
      type: 'SeatActivated' | 'SeatDeactivated',
      product: string,
      version: number,
    ): PlatformEvent => ({
      type,
      detail: { property_id: propertyId, product_id: product, version, occurred_at: at() },
    });

    await publish(seat('SeatActivated', 'upsells', 1), seat('SeatActivated', 'guidebook', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(3);
    expect((await usageOf(partner.key)).active_seats).toBe(before.active_seats + 2);

    const off = seat('SeatDeactivated', 'upsells', 2);
    await publish(off, off, seat('SeatActivated', 'upsells', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);

    // The product the host activated through its link, switched off by the platform.
    await publish(seat('SeatDeactivated', 'assistant', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
    // The host had its one seat when `before` was read, and has one again.
    expect((await usageOf(partner.key)).active_seats).toBe(before.active_seats);
  });

  it('end in the state of the highest version, whatever the order of delivery', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });
    const seat = (type: 'SeatActivated' | 'SeatDeactivated', version: number): PlatformEvent => ({
      type,
      detail: { property_id: propertyId, product_id: 'guidebook', version, occurred_at: at() },
    });

    // Version 3 (off) arrives first; versions 1 (on) and 2 (on) after it change nothing.
    await publish(seat('SeatDeactivated', 3));
    await publish(seat('SeatActivated', 2), seat('SeatActivated', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
    await publish(seat('SeatActivated', 4));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
  });

  it('dead-letters a seat outside the agreement, with the reason, while the rest of the file applies', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });

    const other = await sponsoredProperty(partner.id, { products: ['assistant'] });

    // Another file published at the same time, which applies whole: its refusals are its own.
    const [result, otherResult] = await Promise.all([
      publish(
        {
          type: 'SeatActivated',
          detail: { property_id: propertyId, product_id: 'checkin', version: 1, occurred_at: at() },
        },
        {
          type: 'SeatActivated',
          detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
        },
      ),
      publish({
        type: 'SeatActivated',
        detail: { property_id: other.propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
      }),
    ]);

    expect(result.refused).toBe(1);
    expect(otherResult.refused).toBe(0);
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
    const [failed, ...others] = await failedEventsAbout({ key: 'property_id', id: propertyId });
    expect(others).toEqual([]);
    expect(failed?.detail_type).toBe('SeatActivated');
    expect(failed?.reason).toContain(`checkin is not in the agreement of partner ${partner.id}`);
  });
});

describe('seats, against what happens meanwhile', () => {
  it('stay on when the host chooses the product again while an older switch-off is being applied', async () => {
    // Prepare: the platform switches the seat off; the host chooses it again through a link right
    // after, between the consumer's read of the seat and its write.
    const host = {
      partnerId: partner.id,
      contactEmail: `chosen-again-${Date.now()}@example.com`,
      contactName: 'Chosen Again',
      pmsHotelId: `AGAIN-${Date.now()}`,
      propertyName: 'Chosen Again',
      productIds: ['guidebook' as const],
    };
    const { propertyId, hostUserId } = await provisionSponsoredHost({ ...host, nowMs: Date.now() });
    const switchedOff = at();

    // Act
    await racing(
      {
        markers: ['changedAt'],
        timing: 'before',
        meanwhile: () => provisionSponsoredHost({ ...host, nowMs: Date.parse(switchedOff) + 1 }),
      },
      () =>
        applyPlatformEvent(
          {
            type: 'SeatDeactivated',
            detail: {
              property_id: propertyId,
              product_id: 'guidebook',
              version: 1,
              occurred_at: switchedOff,
            },
          },
          Date.now(),
          Date.now() + 60_000,
        ),
    );

    // Assess
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
  });
});

describe('properties', () => {
  it('take their name and units from PropertyUpdated, each field at its greatest version', async () => {
    const { propertyId } = await sponsoredProperty(partner.id, { name: 'Old Mill' });
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

    await publish(
      { type: 'PropertyUpdated', detail: { property_id: propertyId, version: 3, name: 'The Old Mill' } },
      { type: 'PropertyUpdated', detail: { property_id: propertyId, version: 2, name: 'Mill', units: 4 } },
      {
        type: 'ReservationChanged',
        detail: {
          property_id: propertyId,
          version: 1,
          reservation: {
            id: 'R-1',
            channel: 'Direct',
            booked_at: at(-60),
            check_in: today,
            check_out: tomorrow,
            status: 'confirmed',
          },
        },
      },
    );

    const { json } = await apiGet('/properties', partner.key);
    const names = json.properties as { id: number; name: string }[];
    expect(names.find((property) => property.id === propertyId)?.name).toBe('The Old Mill');
    const signals = await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key);
    expect((signals.json.signals as { occupancy_today: number }).occupancy_today).toBe(0.25);
  });
});

describe('reservations', () => {
  it('move pricing signals; a cancellation takes one out, and older versions change nothing', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    // Fixed once, so that the duplicates below are the same event to the millisecond.
    const bookedAt = at(-24 * 60);
    const checkIn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const checkOut = new Date(Date.now() + 13 * 86_400_000).toISOString().slice(0, 10);
    const reservation = (id: string, status: 'confirmed' | 'cancelled') => ({
      id,
      channel: 'Airbnb',
      booked_at: bookedAt,
      check_in: checkIn,
      check_out: checkOut,
      status,
    });
    const changed = (version: number, id: string, status: 'confirmed' | 'cancelled'): PlatformEvent => ({
      type: 'ReservationChanged',
      detail: { property_id: propertyId, version, reservation: reservation(id, status) },
    });
    const total = async () =>
      (
        (await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key)).json.signals as {
          total_reservations: number;
        }
      ).total_reservations;

    await publish(changed(1, 'A', 'confirmed'), changed(1, 'B', 'confirmed'), changed(1, 'B', 'confirmed'));
    expect(await total()).toBe(2);
    await publish(changed(2, 'A', 'cancelled'), changed(1, 'A', 'confirmed'));
    expect(await total()).toBe(1);
  });

  it('of one property, delivered together, end as one by one: duplicates, disagreements and the channel cap', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    // Fixed once: two events meant to be the same must not differ by the millisecond they were made in.
    const bookedAt = at(-24 * 60);
    const checkIn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const checkOut = new Date(Date.now() + 12 * 86_400_000).toISOString().slice(0, 10);
    const changed = (version: number, id: string, channel: string): PlatformEvent => ({
      type: 'ReservationChanged',
      detail: {
        property_id: propertyId,
        version,
        reservation: {
          id,
          channel,
          booked_at: bookedAt,
          check_in: checkIn,
          check_out: checkOut,
          status: 'confirmed',
        },
      },
    });
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => `Channel ${index}`);
    await publish(...channels.map((channel, index) => changed(1, `full-${index}`, channel)));

    await publish(
      changed(1, 'over', 'One channel too many'),
      changed(1, 'late', 'Channel 3'),
      changed(2, 'late', 'One channel too many'),
      changed(1, 'twice', 'Channel 1'),
      changed(1, 'twice', 'Channel 2'),
      changed(1, 'again', 'Channel 4'),
      changed(1, 'again', 'Channel 4'),
    );

    const signals = (await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key)).json.signals as {
      total_reservations: number;
      source_mix: Record<string, number>;
    };
    // The full month, `late` at its first version, the first `twice` and `again` once.
    expect(signals.total_reservations).toBe(MAX_CHANNELS_PER_MONTH + 3);
    expect(Object.keys(signals.source_mix).sort()).toEqual([...channels].sort());
    const failed = await failedEventsAbout({ key: 'property_id', id: propertyId });
    const reasons = failed.map((event) => {
      const { reservation } = event.detail as { reservation: { id: string; channel: string } };
      return `${reservation.id} ${reservation.channel}: ${event.reason}`;
    });
    const overCap = `ReservationChanged cannot be applied: property ${propertyId} would have ${MAX_CHANNELS_PER_MONTH + 1} booking channels in ${bookedAt.slice(0, 7)}; at most ${MAX_CHANNELS_PER_MONTH} are allowed per property and month.`;
    expect(reasons.sort()).toEqual([
      `late One channel too many: ${overCap}`,
      `over One channel too many: ${overCap}`,
      expect.stringMatching(/^twice Channel 2: .*two events of one version disagree\.$/),
    ]);
  });
});
