import { describe, expect, it } from 'vitest';
import { eventsApplied } from '../../operations/events';
import { admin } from '../support/cli';
import { apiGet, approvedPartner } from '../support/partners';

describe('sample data for a partner (local and sandbox)', () => {
  it('gives a fresh partner hosts, properties and five months of reservations, idempotently', async () => {
    const partner = await approvedPartner({ products: ['assistant', 'guidebook'] });

    const first = await admin('sample-data', 'add', '--partner', partner.slug, '--json');
    const again = await admin('sample-data', 'add', '--partner', partner.slug, '--json');
    // The reservations go out as the platform's events: read once they are applied.
    expect(await eventsApplied(60_000)).toBe(true);
    const properties = (await apiGet('/properties', partner.key)).json.properties as { id: number }[];
    const usage = (await apiGet('/usage', partner.key)).json as { active_seats: number; hosts: unknown[] };
    const signals = (
      await apiGet(`/properties/${properties[1]?.id}/pricing-signals?lookback_days=365`, partner.key)
    ).json.signals as {
      total_reservations: number;
      source_mix: Record<string, number>;
    };

    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ partner: partner.slug, properties: 5 });
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    expect(properties).toHaveLength(5);
    expect(usage.hosts).toHaveLength(3);
    expect(usage.active_seats).toBeGreaterThan(5);
    expect(signals.total_reservations).toBeGreaterThan(50);
    expect(Object.keys(signals.source_mix).length).toBeGreaterThanOrEqual(3);
  });

  it('shows operators each property with the partner’s own id of it, which finds it in the API', async () => {
    // Prepare
    const partner = await approvedPartner({ products: ['assistant', 'guidebook'] });
    await admin('sample-data', 'add', '--partner', partner.slug);

    // Act
    const shown = JSON.parse((await admin('partners', 'show', partner.slug, '--json')).stdout) as {
      properties: { id: number; pms_hotel_id: string }[];
    };
    const table = (await admin('partners', 'show', partner.slug)).stdout;
    const [first] = shown.properties;
    const found = await apiGet(
      `/properties?pms_hotel_id=${encodeURIComponent(first?.pms_hotel_id ?? '')}`,
      partner.key,
    );

    // Assess
    expect(shown.properties).toHaveLength(5);
    expect(table).toContain('PMS HOTEL ID');
    expect(table).toContain(first?.pms_hotel_id);
    expect((found.json.properties as { id: number }[]).map((property) => property.id)).toEqual([first?.id]);
  });
});
