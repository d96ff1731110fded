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
 * A key's window as one instance last saw it: the admission times (ms since the Unix epoch) that
 * the key's stored list held, at most `limit` of them, in the order their writes landed. A time
 * is busy for `windowMs` after its admission, and is only ever removed from the list once it is
 * no longer busy: so a time seen busy is still stored now, and a view can be out of date but
 * never wrong about a busy time.
 */
export type AdmissionTimes = readonly number[];

const isBusy = (admittedAtMs: number, nowMs: number, windowMs: number) => admittedAtMs + windowMs > nowMs;

/**
 * What admitting a request at `nowMs` takes, from this view: undefined when the view shows
 * `limit` busy times (`limit` requests were admitted in the last `windowMs`: refuse); otherwise
 * the positions of the times the admission removes to make room: none while the list is shorter
 * than `limit`, and every time in the view that is no longer busy once it is full.
 */
export function roomIn(
  times: AdmissionTimes,
  nowMs: number,
  policy: RateLimitPolicy = RATE_LIMIT,
): { readonly expired: number[] } | undefined {
  const expired: number[] = [];
  times.forEach((admittedAtMs, index) => {
    if (!isBusy(admittedAtMs, nowMs, policy.windowMs)) expired.push(index);
  });
  if (times.length - expired.length >= policy.limit) return undefined;
  return { expired: times.length < policy.limit ? [] : expired };
}

/** An instance's view of a key: the times its last answer held, and the pace they showed. */
export interface WindowView {
  readonly times: AdmissionTimes;
  /** When that answer came (the instance's clock), and how long its call took. */
  readonly atMs: number;
  readonly callMs: number;
  /** Other instances' admissions per ms between that answer and the one before it, if any. */
  readonly othersPerMs?: number;
}

const busyAt = (times: AdmissionTimes, nowMs: number, policy: RateLimitPolicy) =>
  times.filter((admittedAtMs) => isBusy(admittedAtMs, nowMs, policy.windowMs)).length;

/**
 * The view an answer gives (a write's, either way, or a read's), with the pace of other
 * instances' admissions since the previous answer: busy times leave the list only once expired,
 * so the busy times an answer shows beyond the previous answer's are admissions.
 */
export function observe(
  previous: WindowView | undefined,
  answer: { readonly times: AdmissionTimes; readonly admitted: boolean },
  startedMs: number,
  atMs: number,
  policy: RateLimitPolicy = RATE_LIMIT,
): WindowView {
  const view = { times: answer.times, atMs, callMs: atMs - startedMs };
  if (!previous || atMs <= previous.atMs) return view;
  const others =
    busyAt(answer.times, atMs, policy) - busyAt(previous.times, atMs, policy) - (answer.admitted ? 1 : 0);
  return { ...view, othersPerMs: Math.max(0, others) / (atMs - previous.atMs) };
}

/** The longest an instance waits for other instances' writes to land before it reads. */
export const MAX_READ_WAIT_MS = 1_000;

/**
 * Whether to read the window before writing, and after how long: when the pace of other
 * instances' admissions the view showed says its room is probably taken. A read costs a fifth of
 * a write's price on demand, and none of the key's partition write throughput, where a write that
 * fails costs a whole write unit. If others have probably taken the room since the view, read
 * now; if they probably take twice the room counting the writes already on their way (as many
 * as landed during the instance's last call), wait one call's time for those to land, then read.
 * A pace older than a window says nothing.
 * https://aws.amazon.com/dynamodb/pricing/on-demand/
 */
export function readBeforeWriting(
  view: WindowView,
  nowMs: number,
  policy: RateLimitPolicy = RATE_LIMIT,
): { readonly waitMs: number } | undefined {
  const elapsedMs = nowMs - view.atMs;
  if (view.othersPerMs === undefined || elapsedMs >= policy.windowMs) return undefined;
  const room = policy.limit - busyAt(view.times, nowMs, policy);
  const since = view.othersPerMs * elapsedMs;
  if (since >= room) return { waitMs: 0 };
  if (since + view.othersPerMs * view.callMs >= 2 * room)
    return { waitMs: Math.min(view.callMs, MAX_READ_WAIT_MS) };
  return undefined;
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
 * The decision a view gives at `nowMs`: after an admission, the view holds the stored times
 * including the one just added; for a refusal, the view that showed `limit` busy times.
 */
export function rateDecision(
  times: AdmissionTimes,
  nowMs: number,
  admitted: boolean,
  policy: RateLimitPolicy = RATE_LIMIT,
): RateDecision {
  const busy = times.filter((admittedAtMs) => isBusy(admittedAtMs, nowMs, policy.windowMs));
  const oldest = busy.length > 0 ? Math.min(...busy) : undefined;
  return {
    admitted,
    atMs: nowMs,
    limit: policy.limit,
    // More busy times than the limit only after the limit was lowered: none left, not fewer.
    remaining: Math.max(0, policy.limit - busy.length),
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
