/** What `traffic` reads a stage's access log through: the local file, or CloudWatch Logs Insights. */

/** The time range of a report: from UTC midnight `days - 1` days ago to now (both included). */
export interface TrafficWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** Requests of one UTC day, key prefix and status. */
export interface AccessLogCount {
  readonly date: string;
  readonly keyPrefix: string;
  readonly status: number;
  readonly requests: number;
}

interface AccessLogCounts {
  readonly counts: readonly AccessLogCount[];
  /** Bytes the query scanned (billed per GB in CloudWatch Logs Insights). */
  readonly bytesScanned?: number;
}

/** Where a stage's access log is read. */
export interface AccessLogReader {
  /** Said to the operator on stderr: where the numbers come from. */
  readonly description: string;
  counts(partnerId: number, window: TrafficWindow): Promise<AccessLogCounts>;
}
