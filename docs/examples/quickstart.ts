import { createPartnerApiClient, PartnerApiConfigError, PartnerApiError } from '@example-partner-api/client';

/** "1 property", "2 properties". */
const count = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

/** One line that says what to do about an error. */
function explain(error: unknown): string {
  if (error instanceof PartnerApiConfigError) return error.message;
  if (error instanceof TypeError && error.message === 'fetch failed')
    return `cannot reach PARTNER_API (${String((error.cause as Error | undefined)?.message ?? error.cause)}): check the address and your network`;
  if (!(error instanceof PartnerApiError)) throw error;
  const quote = `(request ${error.requestId ?? 'id not given'})`;
  switch (error.status) {
    case 401:
      return `401 ${error.type}: check PARTNER_API_KEY, or use the key that replaced it ${quote}`;
    case 403: // the detail names the scope the route needs and the agreement it comes with
      return `403: your agreement does not include this data. ${error.problem.detail ?? ''} ${quote}`;
    case 404:
      return error.type === 'property-not-found'
        ? `404: no such property for your account; use an id from GET /properties ${quote}`
        : `${error.message}; PARTNER_API should end in /partner-api/v1 ${quote}`;
    case 429:
      return `429: rate limit reached; retry in ${error.retryAfterSeconds ?? 60} s`;
    default:
      return `${error.message} ${quote}`;
  }
}

async function main(): Promise<void> {
  try {
    const api = createPartnerApiClient({
      baseUrl: process.env.PARTNER_API,
      apiKey: process.env.PARTNER_API_KEY,
      maxRetryAfterSeconds: 10, // wait for short 429/503 pauses only; a longer one is reported
    });
    const { data: usage } = await api.usage();
    console.log(count(usage.active_seats, 'active seat', 'active seats'));
    const properties = await api.allProperties(); // page by page, 1,000 at a time
    console.log(count(properties.length, 'property', 'properties'));
    // On the command line, a property id (42) or your own id of a hotel (PMS-42); else the first three.
    const [chosen] = process.argv.slice(2);
    let ids = properties.slice(0, 3).map(({ id }) => id);
    if (chosen && /^[0-9]+$/.test(chosen)) ids = [Number(chosen)];
    else if (chosen) {
      const hotel = await api.propertyByPmsHotelId(chosen); // GET /properties?pms_hotel_id=…
      console.log(
        hotel ? `${chosen} is property ${hotel.id} (${hotel.name})` : `${chosen}: not one of yours`,
      );
      ids = hotel ? [hotel.id] : [];
    }
    for (const id of ids) {
      const { data } = await api.pricingSignals(id, { lookbackDays: 30 });
      console.log(`property ${id}: occupancy today ${data.signals.occupancy_today}`);
    }
  } catch (error) {
    console.error(explain(error));
    process.exitCode = 1;
  }
}

void main();
