/**
 * Items and read units one pricing-signals call costs for a property with 100, 10,000 (and,
 * with --large, 100,000) reservations: reads must stay flat as history grows.
 * Run: npx tsx bench/pricing-reads.ts [--large]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../lib/local/service';

const sizes = process.argv.includes('--large') ? [100, 10_000, 100_000] : [100, 10_000];
const directory = await mkdtemp(join(tmpdir(), 'bench-pricing-'));
const service = await startLocalService({
  host: '127.0.0.1',
  port: 0,
  directory,
  persist: false,
  log: () => undefined,
});
try {
  const { documentClient } = await import('../lambdas/data/db');
  const { provisionSponsoredHost } = await import('../lambdas/data/provisioning');
  const { importReservations, readPricingInputs } = await import('../lambdas/data/reservations');
  const { bookingWindow } = await import('../lambdas/domain/pricing-signals');
  const { dayOfTimestamp, isoDate } = await import('../lambdas/domain/calendar');
  const { meterDynamo } = await import('./lib/dynamo-meter');
  const meter = meterDynamo(documentClient);

  const now = Date.now();
  const today = dayOfTimestamp(now);
  const rows = [];
  for (const size of sizes) {
    const { propertyId } = await provisionSponsoredHost({
      partnerId: 1,
      contactEmail: `bench-${size}@example.com`,
      contactName: 'Bench',
      pmsHotelId: `BENCH-${size}`,
      propertyName: `Bench ${size}`,
      productIds: ['assistant'],
      nowMs: now,
    });
    // Spread over ten years of history so most of it lies outside any lookback window.
    const reservations = Array.from({ length: size }, (_, i) => {
      const bookedDay = today - Math.floor((i / size) * 3_650);
      return {
        id: `r${i}`,
        property_id: propertyId,
        channel: ['Airbnb', 'Booking.com', 'Direct', 'Vrbo'][i % 4] ?? 'Direct',
        booked_at: new Date(bookedDay * 86_400_000 + (i % 86_400) * 1_000).toISOString(),
        check_in: isoDate(bookedDay + (i % 60)),
        check_out: isoDate(bookedDay + (i % 60) + 1 + (i % 6)),
        status: i % 13 === 0 ? ('cancelled' as const) : ('confirmed' as const),
      };
    });
    const importStarted = performance.now();
    await importReservations(propertyId, reservations, now);
    const importSeconds = (performance.now() - importStarted) / 1000;
    for (const lookback of [90, 365]) {
      meter.take();
      const started = performance.now();
      await readPricingInputs(propertyId, bookingWindow(now, lookback), today);
      const ms = performance.now() - started;
      const usage = meter.take();
      rows.push({
        reservations: size,
        lookback,
        requests: usage.requests,
        itemsRead: usage.itemsRead,
        readCapacity: usage.readCapacity,
        ms,
        importSeconds,
      });
    }
  }
  console.log(
    '| reservations | lookback_days | DynamoDB requests | items read | read units (DynamoDB Local) | read time ms | import s |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.reservations} | ${row.lookback} | ${row.requests} | ${row.itemsRead} | ${row.readCapacity} | ${row.ms.toFixed(1)} | ${row.importSeconds.toFixed(1)} |`,
    );
  }
} finally {
  await service.stop();
  await rm(directory, { recursive: true, force: true });
}
