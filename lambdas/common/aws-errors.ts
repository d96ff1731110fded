/**
 * How AWS SDK failures are classified: a failed condition, a cancelled transaction, or a
 * transient fault (busy or unreachable) that deserves a 503 or a try-again page.
 */

/** True when a single conditional write failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Per-item cancellation codes of a failed transaction, or undefined for other errors. */
export function transactionCancellationCodes(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code);
}

const RETRYABLE_CANCELLATION_CODES = new Set([
  'None',
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/**
 * A transaction cancelled only because of contention or throttling (another transaction held
 * an item, or capacity ran short): nothing was written, and trying again is right.
 */
export function isRetryableCancellation(error: unknown): boolean {
  const codes = transactionCancellationCodes(error);
  return (
    codes?.some((code) => code !== 'None') === true &&
    codes.every((code) => RETRYABLE_CANCELLATION_CODES.has(code ?? 'None'))
  );
}

/** AWS SDK failures that mean "busy or unreachable right now", not "bad request". */
const TRANSIENT_ERROR_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // The limiter's admitting write, not sent again after no answer (lambdas/data/rate-windows.ts).
  'AdmissionOutcomeUnknown',
]);

const TRANSIENT_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isRetryableCancellation(error)) return true;
  const { code, $retryable } = error as Error & { code?: string; $retryable?: unknown };
  return (
    TRANSIENT_ERROR_NAMES.has(error.name) ||
    (code !== undefined && TRANSIENT_ERROR_CODES.has(code)) ||
    $retryable !== undefined
  );
}
