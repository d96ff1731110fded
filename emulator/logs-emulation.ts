import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { requestTimeMs } from './access-log';
import { FilterPatternError, matchesFilterPattern, parseFilterPattern } from './log-filter-pattern';
import type { LocalMetricFilter } from './metric-filters';

/**
 * CloudWatch Logs as the local endpoint emulates it, for the partner API's access log: the file
 * `access-log.jsonl` is the log group LOCAL_ACCESS_LOG_GROUP, with the stack's metric filters on it
 * (`DescribeMetricFilters`), searched with `FilterLogEvents`; `TestMetricFilter` decides a pattern
 * on given lines. JSON filter patterns only (log-filter-pattern.ts), as the stack's filters are.
 */
export interface LogsAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface LocalLogsOptions {
  readonly logGroupName: string;
  readonly file: string;
  readonly metricFilters: () => Promise<readonly LocalMetricFilter[]>;
}

const failure = (type: string, message: string): LogsAnswer => ({
  status: 400,
  body: { __type: type, message },
});

function pattern(text: unknown) {
  try {
    return parseFilterPattern(String(text ?? ''));
  } catch (error) {
    if (error instanceof FilterPatternError) return error;
    throw error;
  }
}

async function lines(file: string): Promise<string[]> {
  try {
    await stat(file);
  } catch {
    return [];
  }
  const read: string[] = [];
  const input = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of input) if (line.trim() !== '') read.push(line);
  return read;
}

/** Answers `Logs_20140328.<operation>` with the JSON body of the request. */
export async function answerLogsCall(
  options: LocalLogsOptions,
  operation: string,
  body: Record<string, unknown>,
): Promise<LogsAnswer> {
  if (operation === 'TestMetricFilter') {
    const parsed = pattern(body.filterPattern);
    if (parsed instanceof FilterPatternError)
      return failure('InvalidParameterException', `Invalid filter pattern: ${parsed.message}`);
    const messages = Array.isArray(body.logEventMessages) ? body.logEventMessages.map(String) : [];
    return {
      status: 200,
      body: {
        matches: messages.flatMap((eventMessage, index) =>
          matchesFilterPattern(parsed, eventMessage)
            ? [{ eventNumber: index + 1, eventMessage, extractedValues: {} }]
            : [],
        ),
      },
    };
  }
  if (operation !== 'DescribeMetricFilters' && operation !== 'FilterLogEvents')
    return failure('UnknownOperationException', `The local endpoint does not answer logs:${operation}.`);
  if (body.logGroupName !== options.logGroupName)
    return failure(
      'ResourceNotFoundException',
      `The specified log group does not exist: the local one is ${options.logGroupName}.`,
    );
  if (operation === 'DescribeMetricFilters')
    return {
      status: 200,
      body: {
        metricFilters: (await options.metricFilters()).map((filter) => ({
          ...filter,
          logGroupName: options.logGroupName,
          creationTime: 0,
        })),
      },
    };
  const parsed = body.filterPattern === undefined ? undefined : pattern(body.filterPattern);
  if (parsed instanceof FilterPatternError)
    return failure('InvalidParameterException', `Invalid filter pattern: ${parsed.message}`);
  const startTime = typeof body.startTime === 'number' ? body.startTime : 0;
  const endTime = typeof body.endTime === 'number' ? body.endTime : Number.POSITIVE_INFINITY;
  const limit = typeof body.limit === 'number' ? body.limit : 10_000;
  const events = (await lines(options.file))
    .map((message, index) => {
      let at: number | undefined;
      try {
        at = requestTimeMs(String((JSON.parse(message) as { requestTime?: unknown }).requestTime));
      } catch {
        at = undefined;
      }
      return { message, index, timestamp: at ?? 0 };
    })
    // Request times have whole seconds: an event of the start's second is in.
    .filter(({ timestamp }) => timestamp >= startTime - 999 && timestamp <= endTime)
    .filter(({ message }) => parsed === undefined || matchesFilterPattern(parsed, message))
    .slice(0, limit)
    .map(({ message, index, timestamp }) => ({
      logStreamName: 'local',
      timestamp,
      message,
      ingestionTime: timestamp,
      eventId: String(index),
    }));
  return {
    status: 200,
    body: { events, searchedLogStreams: [{ logStreamName: 'local', searchedCompletely: true }] },
  };
}
