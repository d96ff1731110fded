import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { RateDecision, RateWindowState } from '../domain/rate-limit';
import { decideRateLimit, decodeAdmissions, EMPTY_RATE_WINDOW, encodeAdmissions } from '../domain/rate-limit';
import { isConditionFailure } from '../shared/aws-errors';
import { ProblemError } from '../shared/problems';
import { documentClient, TABLE_NAME } from './db';
import { RATE_LIMIT_PARTITION } from './partitions';

/** Its own partition prefix, so API handlers can be granted writes to these items and no others. */
const rateWindowKey = (prefix: string) => ({ PK: `${RATE_LIMIT_PARTITION}${prefix}`, SK: 'RATELIMIT' });

/**
 * This process's last view of each key's window. A stale view is safe: entries only leave the
 * log by ageing out, so a denial computed from an older view is also a denial now, and an
 * admission is only final once the versioned write succeeds.
 */
const lastSeen = new Map<string, RateWindowState>();
const LAST_SEEN_LIMIT = 10_000;
const MAX_ATTEMPTS = 8;

/** Requests of one key wait for each other inside a process instead of racing in DynamoDB. */
const turns = new Map<string, Promise<unknown>>();

function remember(prefix: string, state: RateWindowState): void {
  lastSeen.delete(prefix);
  lastSeen.set(prefix, state);
  if (lastSeen.size > LAST_SEEN_LIMIT) {
    const oldest = lastSeen.keys().next().value;
    if (oldest !== undefined) lastSeen.delete(oldest);
  }
}

function toState(item: Record<string, unknown> | undefined): RateWindowState {
  if (!item || typeof item.v !== 'number' || !(item.r instanceof Uint8Array)) return EMPTY_RATE_WINDOW;
  return { version: item.v, admittedAt: decodeAdmissions(Number(item.b), item.r) };
}

/**
 * Counts one request against a key's exact 120-per-60-s window, decided when its turn comes.
 * Admission costs one conditional write and no read; a denial costs nothing when this
 * process's view already shows the window full. Writers in other processes (other Lambda
 * instances) are reconciled by the version condition, whose failure returns the stored window.
 */
export function consumeRequest(prefix: string, clock: () => number = Date.now): Promise<RateDecision> {
  const previous = turns.get(prefix) ?? Promise.resolve();
  const turn = previous.then(() => decideAndStore(prefix, clock));
  const settled = turn.catch(() => undefined);
  turns.set(prefix, settled);
  void settled.then(() => {
    if (turns.get(prefix) === settled) turns.delete(prefix);
  });
  return turn;
}

async function decideAndStore(prefix: string, clock: () => number): Promise<RateDecision> {
  let state = lastSeen.get(prefix) ?? EMPTY_RATE_WINDOW;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const decision = decideRateLimit(state, clock());
    if (!decision.admitted) return decision;
    const { base, packed } = encodeAdmissions(decision.next.admittedAt);
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: TABLE_NAME,
          Key: rateWindowKey(prefix),
          UpdateExpression: 'SET v = :next, b = :base, r = :packed, lastUsedAt = :now',
          ConditionExpression: state.version === 0 ? 'attribute_not_exists(v)' : 'v = :current',
          ExpressionAttributeValues: {
            ':next': decision.next.version,
            ':base': base,
            ':packed': packed,
            ':now': new Date(decision.atMs).toISOString(),
            ...(state.version === 0 ? {} : { ':current': state.version }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      remember(prefix, decision.next);
      return decision;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another instance admitted a request first: continue from the stored window it returned,
      // after a short random pause so that racing instances fall out of step.
      const stored = (error as Error & { Item?: Parameters<typeof unmarshall>[0] }).Item;
      state = toState(stored ? unmarshall(stored) : undefined);
      remember(prefix, state);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
    }
  }
  throw new ProblemError(
    'service-unavailable',
    'Too many simultaneous requests for this key; retry shortly.',
    {
      'Retry-After': '1',
    },
  );
}

/** Last time each key was admitted, for operators (`keys list`). */
export async function lastUsedOfKeys(prefixes: readonly string[]): Promise<Map<string, string>> {
  const lastUsed = new Map<string, string>();
  for (let start = 0; start < prefixes.length; start += 100) {
    const chunk = prefixes.slice(start, start + 100);
    const { Responses } = await documentClient.send(
      new BatchGetCommand({
        RequestItems: {
          [TABLE_NAME]: { Keys: chunk.map(rateWindowKey), ProjectionExpression: 'PK, lastUsedAt' },
        },
      }),
    );
    for (const item of Responses?.[TABLE_NAME] ?? []) {
      if (typeof item.lastUsedAt === 'string')
        lastUsed.set(String(item.PK).slice(RATE_LIMIT_PARTITION.length), item.lastUsedAt);
    }
  }
  return lastUsed;
}

/** Forgets this process's views (tests). */
export function forgetRateWindows(): void {
  lastSeen.clear();
}
