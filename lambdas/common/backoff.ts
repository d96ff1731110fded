/**
 * The one wait between retries of a cancelled transaction (contention, throttling): "full
 * jitter" exponential backoff, a random time up to `baseMs × 2^(retry − 1)`, capped. Writers
 * that collided then spread out instead of colliding again in step.
 */
function backoffMs(retry: number, baseMs: number, capMs = 1_000, random: () => number = Math.random): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, retry - 1)) * random();
}

/** Waits before retry number `retry` (1 for the first retry). */
export function pauseBeforeRetry(retry: number, baseMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffMs(retry, baseMs)));
}
