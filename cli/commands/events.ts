import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { PLATFORM_EVENT_TYPES } from '../../core/contract/platform-events';
import { quoted } from '../../core/domain/text';
import { SERVICE_EVENT_TYPES } from '../../core/outbound-delivery';
import {
  deadLetteredOf,
  EVENTS_WAIT_SECONDS,
  eventsApplied,
  listFailedEvents,
  listSentEvents,
  parseEventLines,
  publishEventsFile,
  queueDepth,
  redriveFailedEvents,
  resendEvents,
  SENT_EVENTS_DEFAULT_HOURS,
} from '../../operations/events';
import type { Define, Options } from '../command';
import { commandGroup, minuteOf, table, text, UsageError } from '../command';
import { inputFile, integerInRange, isoTime } from '../inputs';

/** Largest events file: 50 MB, as for reservation imports. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Bad lines named in a refusal; the count says how many more. */
const SHOWN_LINES = 50;
/** Strict: a byte that is not UTF-8 is refused, never turned into U+FFFD in an event. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's events, every line checked against the contract before anything is sent: a file
 * with any bad line is a usage mistake (exit 2) that names each bad line and what is wrong.
 */
function readEventsFile(flag: string, value: string) {
  const path = inputFile(flag, value, 'a JSON Lines file of events', MAX_FILE_BYTES);
  const bytes = readFileSync(path);
  let contents: string;
  try {
    contents = UTF8.decode(bytes);
  } catch {
    throw new UsageError(`${flag}: "${quoted(path, 200)}" is not UTF-8 text: save it as UTF-8.`);
  }
  const parsed = parseEventLines(contents);
  if (!parsed.ok) {
    const shown = parsed.errors
      .slice(0, SHOWN_LINES)
      .map((error) => `  - line ${error.line}: ${error.problems.join('; ')}`);
    const more =
      parsed.errors.length > SHOWN_LINES ? [`  ...and ${parsed.errors.length - SHOWN_LINES} more`] : [];
    throw new UsageError(
      [
        `Nothing was sent: ${parsed.errors.length} line(s) of ${quoted(path, 200)} are not events of the contract (docs/design/events.md):`,
        ...shown,
        ...more,
      ].join('\n'),
    );
  }
  if (parsed.events.length === 0) throw new UsageError(`${flag}: "${quoted(path, 200)}" holds no event.`);
  return parsed.events;
}

/** The first line `events publish` answers: how many events the bus took, and of which types. */
export function acceptedLine(accepted: number, events: readonly PlatformEvent[]): string {
  const byType = PLATFORM_EVENT_TYPES.flatMap((type) => {
    const count = events.filter((event) => event.type === type).length;
    return count > 0 ? [`${type} ${count}`] : [];
  });
  return `Accepted ${accepted} event(s): ${byType.join(', ')}.`;
}

/**
 * `events publish`, `events failed`, `events redrive`, `events sent`, `events resend`: what
 * `operations/events.ts` does, as commands.
 */
export function eventCommands(program: Command, define: Define): void {
  const events = commandGroup(
    program,
    'events',
    "The platform's events (seats, properties, sponsorships, reservations, erasures), and the events this service sends it",
  );
  for (const command of [publishCommand, failedCommand, redriveCommand, sentCommand, resendCommand])
    command(events, define);
}

/**
 * Which events of the outbox a command is about: `--host` (every one kept of the host, or since
 * `--since`), or those since `--since` (by default the last `SENT_EVENTS_DEFAULT_HOURS` hours).
 */
function outboxSelection(options: Options) {
  const hostUserId =
    typeof options.host === 'string'
      ? integerInRange('--host', options.host, 1, Number.MAX_SAFE_INTEGER)
      : undefined;
  const since = typeof options.since === 'string' ? isoTime('--since', options.since) : undefined;
  const selection = (nowMs: number) => ({
    sinceMs:
      since !== undefined
        ? Date.parse(since)
        : hostUserId !== undefined
          ? 0
          : nowMs - SENT_EVENTS_DEFAULT_HOURS * 3_600_000,
    ...(hostUserId === undefined ? {} : { hostUserId }),
  });
  return { hostUserId, since, selection };
}

/** `events resend`: the outbox's events put on the outbound bus again, after the platform missed them. */
function resendCommand(events: Command, define: Define): void {
  define(events, 'resend', {
    summary: 'Send the events this service sent (about a host, or since a time) to the platform again',
    examples: ['events resend --host 12', 'events resend --since 2026-11-28T09:00:00Z'],
    action: (options) => {
      const { hostUserId, since, selection } = outboxSelection(options);
      if (hostUserId === undefined && since === undefined)
        throw new UsageError(
          'events resend needs --host <id>, --since <time>, or both: which events to send again.',
        );
      return async (target) => {
        const nowMs = Date.now();
        const { resent, erased, more } = await resendEvents(target, selection(nowMs), nowMs);
        return {
          json: { resent, erased, more },
          text: [
            resent === 0
              ? 'No event to send again.'
              : `Sent ${resent} event(s) again; the platform applies them by version, so one it had changes nothing.`,
            ...(erased > 0 ? [`${erased} event(s) of erased hosts left out: they keep their ids only.`] : []),
            ...(more ? ['...and more: send the rest with a later --since.'] : []),
          ],
        };
      };
    },
  })
    .option('--since <time>', 'the events at or after this ISO 8601 date or time')
    .option('--host <id>', 'the events about this host (host_user_id)');
}

/** `events sent`: what this service sent the platform, from its outbox. */
function sentCommand(events: Command, define: Define): void {
  define(events, 'sent', {
    summary: `List the events this service sent the platform (${SERVICE_EVENT_TYPES.join(', ')}), oldest first`,
    examples: ['events sent', 'events sent --since 2026-11-01 --json', 'events sent --host 12'],
    action: (options, _args, globals) => {
      const { hostUserId, selection } = outboxSelection(options);
      return async () => {
        const nowMs = Date.now();
        const query = selection(nowMs);
        const { sinceMs } = query;
        // The table needs no detail: the read-only operator policy reads nothing more. --json prints
        // the events as delivered, details and all.
        const { events: sent, more } = await listSentEvents(query, nowMs, { details: globals.json });
        const scope =
          hostUserId === undefined
            ? `since ${minuteOf(new Date(sinceMs).toISOString())}`
            : `about host ${hostUserId}`;
        return {
          json: { events: sent, more },
          text:
            sent.length === 0
              ? [`No events sent ${scope}.`]
              : [
                  ...table(
                    ['TIME', 'TYPE', 'VERSION', 'HOST', 'PROPERTY', 'EVENT ID', 'SENT'],
                    sent.map((event) => [
                      minuteOf(event.time),
                      event['detail-type'],
                      event.version === null ? '-' : String(event.version),
                      String(event.host_user_id),
                      event.property_id === null ? '-' : String(event.property_id),
                      event.id,
                      event.erased_at
                        ? `erased ${minuteOf(event.erased_at)}`
                        : event.sent_at
                          ? minuteOf(event.sent_at)
                          : 'waiting',
                    ]),
                  ),
                  ...(more ? ['...and more: narrow it with --since or --host.'] : []),
                  '--json prints each event as delivered (its detail; ids only after an erasure).',
                ],
        };
      };
    },
  })
    .option(
      '--since <time>',
      `only events at or after this ISO 8601 date or time (default: the last ${SENT_EVENTS_DEFAULT_HOURS} hours)`,
    )
    .option('--host <id>', 'only events about this host (host_user_id), every one kept');
}

/** `events publish`: a file of the platform's events sent to the bus, and optionally waited for. */
function publishCommand(events: Command, define: Define): void {
  define(events, 'publish', {
    summary: "Send a JSON Lines file of the platform's events to the stage's event bus",
    examples: ['events publish --file events.jsonl', 'events publish --file events.jsonl --wait --json'],
    action: (options) => {
      const checked = readEventsFile('--file', text(options, 'file'));
      const wait = options.wait === true;
      return async (target) => {
        // The dead-letter queue's depth before, all of it (a message someone is listing is in flight).
        const depth = async () => {
          const { waiting, inFlight } = await queueDepth('platformEventsDeadLetter');
          return waiting + inFlight;
        };
        const before = wait ? await depth() : 0;
        const { accepted, eventIds } = await publishEventsFile(target, checked, Date.now());
        const lines = [acceptedLine(accepted, checked)];
        if (!wait) {
          lines.push(
            'They apply within seconds; `events failed` lists any the service refuses, with the reason.',
          );
          return { json: { accepted }, text: lines };
        }
        const applied = await eventsApplied(EVENTS_WAIT_SECONDS * 1000);
        const failed = await depth();
        // This file's refusals: its events (by the ids EventBridge gave them) among the dead letters,
        // whatever others publish meanwhile.
        const refused = await deadLetteredOf(eventIds, failed - before);
        lines.push(
          !applied
            ? `Still delivering after ${EVENTS_WAIT_SECONDS} s; \`events failed\` lists any refused so far.`
            : refused > 0
              ? `${refused} of them refused: they wait in the dead-letter queue (${failed} in all); \`events failed\` lists them with the reason.`
              : `All applied${failed > 0 ? `; ${failed} older event(s) wait in the dead-letter queue (\`events failed\`)` : ''}.`,
        );
        // A script that waits must see a file that did not apply whole, or not in time: exit 1.
        return {
          json: { accepted, applied, dead_lettered: failed, refused },
          text: lines,
          failed: !applied || refused > 0,
        };
      };
    },
  })
    .requiredOption('--file <path>', 'one event per line: {"detail-type": "...", "detail": {...}}')
    .option(
      '--wait',
      `wait until the queue is empty (at most ${EVENTS_WAIT_SECONDS} s) and say how many were refused`,
    );
}

/** `events failed`: the refused events, with the reason for each. */
function failedCommand(events: Command, define: Define): void {
  define(events, 'failed', {
    summary: 'List the events the service refused (the dead-letter queue), with the reason for each',
    examples: ['events failed', 'events failed --json'],
    action: () => async () => {
      const { events: failed, more } = await listFailedEvents();
      return {
        json: { events: failed, more },
        text:
          failed.length === 0
            ? ['No failed events.']
            : [
                ...table(
                  ['FAILED', 'TYPE', 'DETAIL', 'REASON'],
                  failed.map((event) => [
                    event.failed_at ? minuteOf(event.failed_at) : '-',
                    event.detail_type,
                    quoted(JSON.stringify(event.detail), 80),
                    event.reason,
                  ]),
                ),
                ...(more ? ['...and more: redrive or fix these first.'] : []),
                'Fix what the reason names (or the data it needs), then: npm run admin -- events redrive',
              ],
      };
    },
  });
}

/** `events redrive`: the refused events sent back to the queue. */
function redriveCommand(events: Command, define: Define): void {
  define(events, 'redrive', {
    summary: 'Send every failed event back to the queue, to be applied again',
    examples: ['events redrive'],
    action: () => async (target) => {
      const result = await redriveFailedEvents(target, Date.now());
      return {
        json: result,
        text:
          result.moving === 0
            ? ['No failed events to send again.']
            : [
                `Moving ${result.moving} event(s) back to the queue; they apply within seconds.`,
                'An event refused again comes back to `events failed` with its reason.',
              ],
      };
    },
  });
}
