import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isKeyPrefix } from '../core/domain/api-key';
import type { AccessLogCount, AccessLogReader } from '../operations/access-log-reader';
import { utcDate } from '../operations/traffic';

/**
 * The local server's access log: one JSON object per line in `<local directory>/access-log.jsonl`,
 * with the fields and conventions of the deployed stage's access log (`ACCESS_LOG_FORMAT` in
 * lib/constructs/secure-defaults.ts): every value a string except `status`, and "-" where API
 * Gateway has no value for a `$context` variable (no authorizer context on a 401, no resource on
 * an unknown path). Fields only a deployed stage knows (integration and authorizer status and
 * latency, X-Ray trace, error message) are left out rather than made up.
 */
const ACCESS_LOG_FILE = 'access-log.jsonl';

/** What API Gateway writes for a `$context` variable it has no value for. */
const NO_VALUE = '-';

export interface AccessLogEntry {
  readonly requestId: string;
  /** `$context.requestTime`: CLF, `dd/MMM/yyyy:HH:mm:ss +0000` (UTC here). */
  readonly requestTime: string;
  readonly ip: string;
  readonly userAgent: string;
  readonly httpMethod: string;
  /** The matched route template, e.g. `/partner-api/v1/properties/{propertyId}/pricing-signals`. */
  readonly resourcePath: string;
  /** The path without the query string (which may carry tokens, so is never logged). */
  readonly path: string;
  readonly protocol: string;
  readonly responseLength: string;
  readonly responseLatency: string;
  /** `$context.authorizer.partnerId`: only when the authorizer allowed the request. */
  readonly partnerId: string;
  /** `$context.authorizer.keyPrefix`: only when the authorizer allowed the request. */
  readonly keyPrefix: string;
  /** `$context.error.responseType` of a gateway response (e.g. UNAUTHORIZED, ACCESS_DENIED). */
  readonly responseType: string;
  readonly status: number;
}

export interface AccessLogFacts {
  readonly requestId?: string;
  readonly startedAtMs: number;
  readonly ip?: string;
  readonly userAgent?: string;
  readonly httpMethod: string;
  readonly resourcePath?: string;
  readonly path: string;
  readonly responseLength?: number;
  readonly latencyMs: number;
  readonly partnerId?: string;
  readonly keyPrefix?: string;
  readonly responseType?: string;
  readonly status: number;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `$context.requestTime` of a moment, in UTC. */
export function requestTime(ms: number): string {
  const date = new Date(ms);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** The moment of a `$context.requestTime` (any offset), or undefined if it is not one. */
export function requestTimeMs(value: string): number | undefined {
  const match = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(
    value,
  );
  if (!match) return undefined;
  const [, day, month, year, hours, minutes, seconds, sign, offsetHours, offsetMinutes] = match;
  const monthIndex = MONTHS.indexOf(month ?? '');
  if (monthIndex < 0) return undefined;
  const local = Date.UTC(
    Number(year),
    monthIndex,
    Number(day),
    Number(hours),
    Number(minutes),
    Number(seconds),
  );
  const offsetMs = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  const ms = sign === '+' ? local - offsetMs : local + offsetMs;
  return Number.isFinite(ms) ? ms : undefined;
}

/** One access-log entry, with "-" for every value API Gateway would not have. */
export function accessLogEntry(facts: AccessLogFacts): AccessLogEntry {
  const value = (text: string | number | undefined) =>
    text === undefined || text === '' ? NO_VALUE : String(text);
  return {
    requestId: value(facts.requestId),
    requestTime: requestTime(facts.startedAtMs),
    ip: value(facts.ip),
    userAgent: value(facts.userAgent),
    httpMethod: facts.httpMethod,
    resourcePath: value(facts.resourcePath),
    path: facts.path,
    protocol: 'HTTP/1.1',
    responseLength: value(facts.responseLength),
    responseLatency: String(Math.round(facts.latencyMs)),
    partnerId: value(facts.partnerId),
    keyPrefix: value(facts.keyPrefix),
    responseType: value(facts.responseType),
    status: facts.status,
  };
}

/** A line of the file as an entry, or undefined for anything else (a torn or foreign line). */
export function parseAccessLogLine(line: string): AccessLogEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const entry = parsed as Record<string, unknown>;
  const strings = ['requestTime', 'partnerId', 'keyPrefix'] as const;
  if (strings.some((name) => typeof entry[name] !== 'string')) return undefined;
  if (!Number.isInteger(entry.status)) return undefined;
  return entry as unknown as AccessLogEntry;
}

export function accessLogPath(directory: string): string {
  return join(directory, ACCESS_LOG_FILE);
}

export interface AccessLogWriter {
  readonly path: string;
  write(entry: AccessLogEntry): void;
  close(): Promise<void>;
}

/**
 * Opens the access log for appending (owner-only on creation). `fresh` starts it empty: when
 * the data starts empty too (DynamoDB Local in memory), the partner ids of the last run are
 * reused for other partners, and their old lines would count for the new ones.
 */
export async function openAccessLog(
  directory: string,
  { fresh, onError }: { fresh: boolean; onError: (error: Error) => void },
): Promise<AccessLogWriter> {
  const path = accessLogPath(directory);
  if (fresh) await writeFile(path, '', { mode: 0o600 });
  // Always appending (O_APPEND): each line lands whole at the end, whoever else appends.
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  await once(stream, 'open');
  let failed = false;
  stream.on('error', (error) => {
    // A full disk must not take the server down: the access log stops, the API keeps answering.
    if (!failed) onError(error);
    failed = true;
  });
  return {
    path,
    write(entry) {
      if (!failed) stream.write(`${JSON.stringify(entry)}\n`);
    },
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}

/**
 * The local server's access log (`<local directory>/access-log.jsonl`), read line by line: lines
 * that are not entries (torn by a crash, written by hand) are skipped, as are entries without a
 * partner and key (a 401, a page) or outside the window.
 */
export function localAccessLog(file: string): AccessLogReader {
  return {
    description: `the local access log ${file}`,
    async counts(partnerId, window) {
      try {
        await stat(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { counts: [] };
        throw error;
      }
      const tally = new Map<string, AccessLogCount>();
      const partner = String(partnerId);
      const lines = createInterface({
        input: createReadStream(file, 'utf8'),
        crlfDelay: Number.POSITIVE_INFINITY,
      });
      for await (const line of lines) {
        const entry = parseAccessLogLine(line);
        if (!entry || entry.partnerId !== partner) continue;
        if (entry.keyPrefix === NO_VALUE || !isKeyPrefix(entry.keyPrefix)) continue;
        const at = requestTimeMs(entry.requestTime);
        if (at === undefined || at < window.startMs || at > window.endMs) continue;
        const date = utcDate(at);
        const id = `${date} ${entry.keyPrefix} ${entry.status}`;
        const count = tally.get(id);
        tally.set(id, {
          date,
          keyPrefix: entry.keyPrefix,
          status: entry.status,
          requests: (count?.requests ?? 0) + 1,
        });
      }
      return { counts: [...tally.values()] };
    },
  };
}
