/**
 * The exact per-key rate limit: at most `limit` requests in any rolling `windowMs`, across any
 * number of Lambda instances. This constant is the only place the numbers are written: the
 * algorithm, the response headers, the usage-plan backstop (`lib/stage-config.ts`), the 429
 * texts, the OpenAPI document and the docs all derive from it (docs/design/rate-limit.md explains the
 * algorithm).
 */
export const RATE_LIMIT = { limit: 120, windowMs: 60_000 } as const;

/** The window in whole seconds, as headers and messages state it. */
export const RATE_LIMIT_WINDOW_SECONDS = RATE_LIMIT.windowMs / 1_000;

/** "120 requests per rolling 60 seconds": the policy in words, for messages and docs. */
export const RATE_LIMIT_POLICY_TEXT = `${RATE_LIMIT.limit} requests per rolling ${RATE_LIMIT_WINDOW_SECONDS} seconds`;

export interface RateLimitPolicy {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * A key's window as one instance last saw it: `limit` slots, each holding the time (ms since
 * the Unix epoch) of the last request admitted through it, or 0 if none ever was. A slot is
 * busy for `windowMs` after its admission. A slot is only ever claimed once it is free, by a
 * request that came at least `windowMs` later, so stored times only grow: a slot seen busy is
 * still busy now, and a view can be out of date but never wrong about a busy slot.
 */
export type SlotTimes = readonly number[];

export function emptySlots(policy: RateLimitPolicy = RATE_LIMIT): number[] {
  return Array.from({ length: policy.limit }, () => NEVER_ADMITTED);
}

/** A slot's time when no request was ever admitted through it. */
export const NEVER_ADMITTED = 0;

const isFree = (admittedAtMs: number, nowMs: number, windowMs: number) =>
  admittedAtMs === NEVER_ADMITTED || admittedAtMs + windowMs <= nowMs;

/** Indexes of the slots that are free at `nowMs` in this view. */
function freeSlots(slots: SlotTimes, nowMs: number, policy: RateLimitPolicy = RATE_LIMIT): number[] {
  const free: number[] = [];
  slots.forEach((admittedAtMs, index) => {
    if (isFree(admittedAtMs, nowMs, policy.windowMs)) free.push(index);
  });
  return free;
}

/**
 * A slot to claim, at random among those free in this view (instances that race for one key
 * then rarely pick the same one), or undefined when the view shows every slot busy: `limit`
 * requests were admitted in the last `windowMs`, and the request must be refused.
 */
export function chooseFreeSlot(
  slots: SlotTimes,
  nowMs: number,
  random: () => number,
  policy: RateLimitPolicy = RATE_LIMIT,
): number | undefined {
  const free = freeSlots(slots, nowMs, policy);
  return free[Math.min(free.length - 1, Math.floor(random() * free.length))];
}

export interface RateDecision {
  readonly admitted: boolean;
  /** When the decision was taken (ms since epoch); the headers count from here. */
  readonly atMs: number;
  readonly limit: number;
  /** Requests the key may still make now. */
  readonly remaining: number;
  /** Whole seconds until `remaining` next goes up (0 when nothing counts against the key). */
  readonly resetSeconds: number;
}

/**
 * The decision a view gives at `nowMs`: after an admission, the view holds the stored slots
 * including the one just claimed; for a refusal, the view that showed every slot busy.
 */
export function rateDecision(
  slots: SlotTimes,
  nowMs: number,
  admitted: boolean,
  policy: RateLimitPolicy = RATE_LIMIT,
): RateDecision {
  const busy = slots.filter((admittedAtMs) => !isFree(admittedAtMs, nowMs, policy.windowMs));
  const oldest = busy.length > 0 ? Math.min(...busy) : undefined;
  return {
    admitted,
    atMs: nowMs,
    limit: policy.limit,
    remaining: policy.limit - busy.length,
    resetSeconds:
      oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + policy.windowMs - nowMs) / 1000)),
  };
}

/** Response headers: IETF RateLimit / RateLimit-Policy, and the X-RateLimit-* trio. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"per-key";q=${decision.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`,
    RateLimit: `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`,
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.atMs / 1000) + decision.resetSeconds),
  };
  if (!decision.admitted) headers['Retry-After'] = String(Math.max(1, decision.resetSeconds));
  return headers;
}

/** The detail of a 429: how many requests, in what window, and when to retry. */
export function rateLimitedDetail(resetSeconds: number): string {
  return `This key made ${RATE_LIMIT.limit} requests in the last ${RATE_LIMIT_WINDOW_SECONDS} seconds. Retry after ${resetSeconds} s.`;
}
