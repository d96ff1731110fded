/**
 * Exact rolling-window rate limit (DESIGN.md): at most `limit` requests in any `windowMs`.
 * The state is a sliding log of the admission times still inside the window; it holds at
 * most `limit` entries, so it fits in one small DynamoDB item.
 */
export const RATE_LIMIT = { limit: 120, windowMs: 60_000 } as const;

export interface RateWindowState {
  /** Optimistic-concurrency version of the stored item (0 when none is stored yet). */
  readonly version: number;
  /** Admission times (ms since epoch), oldest first. */
  readonly admittedAt: readonly number[];
}

export const EMPTY_RATE_WINDOW: RateWindowState = { version: 0, admittedAt: [] };

export interface RateDecision {
  readonly admitted: boolean;
  /** When the decision was taken (ms since epoch); the headers count from here. */
  readonly atMs: number;
  /** The state to store when admitted. */
  readonly next: RateWindowState;
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until `remaining` next goes up (0 when nothing counts against the key). */
  readonly resetSeconds: number;
}

/** Decides one request at `nowMs`. Pure: the caller stores `next` with a version condition. */
export function decideRateLimit(
  state: RateWindowState,
  nowMs: number,
  { limit, windowMs }: { limit: number; windowMs: number } = RATE_LIMIT,
): RateDecision {
  const inWindow = state.admittedAt.filter((at) => at > nowMs - windowMs);
  const admitted = inWindow.length < limit;
  // Sorted, so the oldest entry is first even if clocks of two writers disagree slightly.
  const counted = admitted ? [...inWindow, nowMs].sort((a, b) => a - b) : inWindow;
  const oldest = counted[0];
  const resetSeconds = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000));
  return {
    admitted,
    atMs: nowMs,
    next: { version: state.version + 1, admittedAt: counted },
    limit,
    remaining: limit - counted.length,
    resetSeconds,
  };
}

const ENTRY_BYTES = 4;

/**
 * Packs admission times as unsigned 32-bit millisecond offsets from `base` (the oldest
 * entry), so 120 entries cost 480 bytes and a write stays within one write unit.
 */
export function encodeAdmissions(admittedAt: readonly number[]): { base: number; packed: Uint8Array } {
  const base = admittedAt[0] ?? 0;
  const packed = new Uint8Array(admittedAt.length * ENTRY_BYTES);
  const view = new DataView(packed.buffer);
  admittedAt.forEach((at, index) => {
    view.setUint32(index * ENTRY_BYTES, Math.min(Math.max(at - base, 0), 0xffff_ffff));
  });
  return { base, packed };
}

export function decodeAdmissions(base: number, packed: Uint8Array): number[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const admittedAt: number[] = [];
  for (let offset = 0; offset + ENTRY_BYTES <= packed.byteLength; offset += ENTRY_BYTES) {
    admittedAt.push(base + view.getUint32(offset));
  }
  return admittedAt;
}

/** Response headers: IETF RateLimit / RateLimit-Policy, and the X-RateLimit-* trio. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const windowSeconds = RATE_LIMIT.windowMs / 1000;
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"per-key";q=${decision.limit};w=${windowSeconds}`,
    RateLimit: `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`,
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.atMs / 1000) + decision.resetSeconds),
  };
  if (!decision.admitted) headers['Retry-After'] = String(Math.max(1, decision.resetSeconds));
  return headers;
}
