import type { EventSource } from '../../core/event-delivery';
import { OPERATOR_EVENT_SOURCE, PLATFORM_EVENT_SOURCE } from '../../core/event-delivery';
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

/**
 * Where an entity stores each source's sequence of versions (docs/design/events.md#versions): the
 * platform's, and that of this service's operators (a reservation import), apart, so that each
 * source's events are judged only against its own.
 */
const VERSION_ATTRIBUTES: Readonly<Record<EventSource, { version: string; fingerprint: string }>> = {
  [PLATFORM_EVENT_SOURCE]: { version: 'version', fingerprint: 'eventFingerprint' },
  [OPERATOR_EVENT_SOURCE]: { version: 'operatorVersion', fingerprint: 'operatorFingerprint' },
};

/** The version `source` (the platform, unless named) last applied to the item, and its fingerprint. */
export const storedVersionOf = (
  item: Record<string, unknown> | undefined,
  source: EventSource = PLATFORM_EVENT_SOURCE,
): StoredVersion => {
  const { version, fingerprint } = VERSION_ATTRIBUTES[source];
  return {
    ...(typeof item?.[version] === 'number' ? { version: item[version] } : {}),
    ...(typeof item?.[fingerprint] === 'string' ? { eventFingerprint: item[fingerprint] } : {}),
  };
};

/** What each source last applied to the item. */
export const storedVersionsOf = (
  item: Record<string, unknown> | undefined,
): Record<EventSource, StoredVersion> => ({
  [PLATFORM_EVENT_SOURCE]: storedVersionOf(item, PLATFORM_EVENT_SOURCE),
  [OPERATOR_EVENT_SOURCE]: storedVersionOf(item, OPERATOR_EVENT_SOURCE),
});

/** Each source's stored version as the item's attributes (what `storedVersionOf` reads back). */
export function versionAttributes(
  versions: Readonly<Partial<Record<EventSource, StoredVersion>>>,
): Record<string, string | number> {
  const attributes: Record<string, string | number> = {};
  for (const [source, stored] of Object.entries(versions) as [EventSource, StoredVersion][]) {
    const names = VERSION_ATTRIBUTES[source];
    if (stored.version !== undefined) attributes[names.version] = stored.version;
    if (stored.eventFingerprint !== undefined) attributes[names.fingerprint] = stored.eventFingerprint;
  }
  return attributes;
}

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
