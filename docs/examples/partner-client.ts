/**
 * A small client for the partner API (Node.js 18+ or any runtime with fetch). Copy it into your
 * code base: it handles the errors you will meet and reads only the fields it uses, so fields
 * we add later (notably in `signals`) never break it.
 */
export interface PartnerApiOptions {
  /** e.g. https://partner-api.example.com/partner-api/v1 (sandbox and production differ only here). */
  readonly baseUrl: string;
  /** Your key, from your secret store: never from source code, a browser or a mobile app. */
  readonly apiKey: string;
  /** How many times to wait and retry after 429 or 503 (default 3). */
  readonly maxRetries?: number;
}

/** An RFC 9457 problem: `type` tells errors apart, `request_id` is what support asks for. */
export class PartnerApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly requestId: string | undefined,
    detail: string,
  ) {
    super(`${status} ${detail}${requestId ? ` (request ${requestId})` : ''}`);
    this.name = 'PartnerApiError';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET a path of the API; waits as told by Retry-After on 429 and 503, throws PartnerApiError otherwise. */
export async function partnerApiGet<T>(options: PartnerApiOptions, path: string): Promise<T> {
  const maxRetries = options.maxRetries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${options.baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' },
    });
    if (response.ok) return (await response.json()) as T;
    const problem = (await response.json().catch(() => ({}))) as {
      type?: string;
      detail?: string;
      request_id?: string;
    };
    const retryAfter = Number(response.headers.get('Retry-After') ?? 1);
    if ((response.status === 429 || response.status === 503) && attempt < maxRetries) {
      await sleep(Math.min(Math.max(retryAfter, 1), 60) * 1000);
      continue;
    }
    // 401: key missing, mistyped, revoked or expired after a rotation (problem.type says which).
    // 403: the key lacks the scope (revenue:read comes with the revenue-management agreement).
    // 404: no such property for your account (someone else's property answers the same).
    throw new PartnerApiError(
      response.status,
      problem.type ?? 'about:blank',
      problem.request_id,
      problem.detail ?? response.statusText,
    );
  }
}

/** The fields this client uses; the API may send more. */
export interface Usage {
  active_seats: number;
  hosts: { host_user_id: number; active_seats: number }[];
}
export interface Properties {
  properties: { id: number; name: string }[];
}
export interface PricingSignals {
  property_id: number;
  signals: {
    occupancy_today: number;
    avg_lead_time_days: number;
    avg_stay_nights: number;
    total_reservations: number;
    source_mix: Record<string, number>;
  };
  occupancy_30d: Record<string, number>;
}

export const usage = (options: PartnerApiOptions) => partnerApiGet<Usage>(options, '/usage');
export const properties = (options: PartnerApiOptions) => partnerApiGet<Properties>(options, '/properties');
export const pricingSignals = (options: PartnerApiOptions, propertyId: number, lookbackDays = 90) =>
  partnerApiGet<PricingSignals>(
    options,
    `/properties/${propertyId}/pricing-signals?lookback_days=${lookbackDays}`,
  );
