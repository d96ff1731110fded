import {
  isConditionFailure,
  isRetryableCancellation,
  transactionCancellationCodes,
} from '../common/aws-errors';
import { pauseBeforeRetry } from '../common/backoff';

/**
 * How the platform's events are applied (docs/design/events.md): each entity stores the version
 * of the last event applied to it and that event's fingerprint; an event applies only when its
 * version is greater, in one transaction conditioned on what was read.
 */

/** An event that can never apply as it is: it goes to the dead-letter queue with this reason. */
export class RefusedEventError extends Error {
  override readonly name = 'RefusedEventError';
}

/**
 * How much earlier than its entity's creation an event must have been published to be refused as
 * not about it: more than the envelope's whole seconds and any clock difference between the
 * platform and this service.
 */
const PUBLISHED_BEFORE_MARGIN_MS = 5_000;

/**
 * The refusal of an event published before the entity it names was created (ids are counters: an
 * event refused as "no property 31", redriven after property 31 was created for someone else, is
 * not about that property), or undefined. Without either time, nothing to compare.
 */
export function publishedBeforeCreation(
  publishedAt: string | undefined,
  createdAt: string | undefined,
  entity: string,
): RefusedEventError | undefined {
  if (publishedAt === undefined || createdAt === undefined) return undefined;
  if (Date.parse(createdAt) - Date.parse(publishedAt) <= PUBLISHED_BEFORE_MARGIN_MS) return undefined;
  return new RefusedEventError(
    `${entity} was created at ${createdAt}, after the event was published (${publishedAt}): the event is not about it`,
  );
}

/** What applying an event did. */
export type EventOutcome =
  /** It changed what is stored (or recorded its version). */
  | 'applied'
  /** The same version was applied before: a duplicate. */
  | 'duplicate'
  /** A greater version was applied before: the event is older than what is stored. */
  | 'stale'
  /** Its entity was erased: there is nothing to apply it to, and nothing is kept of it. */
  | 'erased';

/** The version an entity has stored, and the fingerprint of the event that set it. */
export interface StoredVersion {
  readonly version?: number;
  readonly eventFingerprint?: string;
}

export const storedVersionOf = (item: Record<string, unknown> | undefined): StoredVersion => ({
  ...(typeof item?.version === 'number' ? { version: item.version } : {}),
  ...(typeof item?.eventFingerprint === 'string' ? { eventFingerprint: item.eventFingerprint } : {}),
});

/**
 * Whether an event of `version` applies to an entity at `stored`: newer, a duplicate (same
 * version, same fingerprint) or stale. The same version saying something else is refused: the
 * platform made one change per version, so two different events of one version make no sense.
 */
export function versionVerdict(
  stored: StoredVersion,
  version: number,
  fingerprint: string,
  entity: string,
): 'newer' | 'duplicate' | 'stale' {
  const current = stored.version ?? 0;
  if (version > current) return 'newer';
  if (version < current) return 'stale';
  if (stored.eventFingerprint !== undefined && stored.eventFingerprint !== fingerprint)
    throw new RefusedEventError(
      `${entity} already applied version ${version} from a different event: two events of one version disagree`,
    );
  return 'duplicate';
}

const MAX_ATTEMPTS = 6;

/**
 * Runs `attempt` (read, decide, write on conditions of what it read) until it commits: a failed
 * condition means another writer got there first (or something remembered was out of date), so
 * the next attempt reads everything again (`fresh`); contention waits a little first. Transient
 * AWS failures are thrown to the queue, which delivers again.
 */
export async function applyOptimistically<T>(attempt: (fresh: boolean) => Promise<T>): Promise<T> {
  for (let number = 1; ; number++) {
    try {
      return await attempt(number > 1);
    } catch (error) {
      const raced =
        isConditionFailure(error) ||
        transactionCancellationCodes(error)?.includes('ConditionalCheckFailed') === true;
      if (number >= MAX_ATTEMPTS || !(raced || isRetryableCancellation(error))) throw error;
      await pauseBeforeRetry(number, 20);
    }
  }
}
