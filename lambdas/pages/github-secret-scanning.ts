import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ProblemName } from '../../core/contract/problems';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, problemBody } from '../../core/contract/problems';
import type { ReportedToken, TokenFeedback } from '../../core/contract/secret-scanning';
import {
  INVALID_SIGNATURE_PROBLEM,
  KEY_IDENTIFIER_HEADER,
  KEY_SIGNATURE_HEADER,
  KEYS_MAX_AGE_MS,
  KEYS_REFETCH_INTERVAL_MS,
  LEAK_NOTICES_FAILED_METRIC,
  LEAKED_KEYS_METRIC,
  leakPlace,
  MAX_LEAK_SOURCE_LENGTH,
  MAX_LEAK_URL_LENGTH,
  MAX_REPORT_BYTES,
  MAX_REPORTED_TOKENS,
  publicKeysDocumentSchema,
  secretScanningReportSchema,
  signatureIsValid,
  tokenHash,
} from '../../core/contract/secret-scanning';
import { GITHUB_REPORTER } from '../../core/domain/partner-mail';
import { isTransientAwsError } from '../common/aws-errors';
import { headerValue } from '../common/http-headers';
import { logger } from '../common/logger';
import type { KeyLeak } from '../data/api-keys';
import type { LeakOutcome } from '../data/leaked-keys';
import { leakNoticeOf, revokeLeakedKey } from '../data/leaked-keys';

/*
 * POST /secret-scanning/github: GitHub's secret scanning partner program reports our keys it found
 * in public (docs/design/api-keys.md#when-a-key-leaks). The signature is checked before anything
 * in the body is read: a report GitHub did not sign evaluates nothing, so the endpoint can never
 * tell anyone whether a key is valid. Never logged: the body, a token; a revoked key is named by
 * its prefix, a reported token by its SHA-256.
 */

const metrics = new Metrics();

/** How many reported tokens are judged at once (each is one consistent read, a revocation a transaction). */
const CONCURRENT_TOKENS = 10;

interface KeyCache {
  readonly keys: ReadonlyMap<string, string>;
  readonly fetchedMs: number;
}
let cache: KeyCache | undefined;
let lastFetchMs = Number.NEGATIVE_INFINITY;

/** The published keys, as the stage setting `SECRET_SCANNING_KEYS_URL` lists them. */
async function fetchPublicKeys(nowMs: number): Promise<KeyCache> {
  const url = process.env.SECRET_SCANNING_KEYS_URL;
  if (!url) throw new Error('SECRET_SCANNING_KEYS_URL is not set; the stack (or npm start) must provide it.');
  const response = await fetch(url, {
    headers: { Accept: 'application/json', 'User-Agent': 'partner-api-secret-scanning' },
    signal: AbortSignal.timeout(3_000),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const document = publicKeysDocumentSchema().parse(await response.json());
  return {
    keys: new Map(document.public_keys.map((key) => [key.key_identifier, key.key])),
    fetchedMs: nowMs,
  };
}

/**
 * The PEM key of an identifier, from the list the instance read: read again when it is older than
 * `KEYS_MAX_AGE_MS` (a withdrawn key stops counting) or does not know the identifier, at most once
 * a minute either way (a stream of made-up identifiers costs one read a minute). A failed read keeps
 * the list it had; `unavailable` when no list could ever be read.
 */
async function publicKeyOf(identifier: string, nowMs: number): Promise<string | undefined | 'unavailable'> {
  const stale = !cache || nowMs - cache.fetchedMs >= KEYS_MAX_AGE_MS;
  if ((stale || !cache?.keys.has(identifier)) && nowMs - lastFetchMs >= KEYS_REFETCH_INTERVAL_MS) {
    lastFetchMs = nowMs;
    try {
      cache = await fetchPublicKeys(nowMs);
    } catch (error) {
      logger.error('The published secret scanning keys could not be read', { error });
    }
  }
  if (!cache) return 'unavailable';
  return cache.keys.get(identifier);
}

function problem(
  name: ProblemName | typeof INVALID_SIGNATURE_PROBLEM.name,
  detail: string,
  requestId: string | undefined,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  const extensions = requestId === undefined ? {} : { request_id: requestId };
  const body =
    name === INVALID_SIGNATURE_PROBLEM.name
      ? {
          type: PROBLEM_TYPE_BASE + name,
          title: INVALID_SIGNATURE_PROBLEM.title,
          status: INVALID_SIGNATURE_PROBLEM.status,
          detail,
          ...extensions,
        }
      : problemBody(name, detail, extensions);
  return {
    statusCode: body.status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/** The raw body as sent: the signature is over these bytes. */
function rawBody(event: APIGatewayProxyEvent): Buffer {
  return Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
}

interface Judged {
  readonly feedback: TokenFeedback;
  /** It could not be judged (a dependency failed): the report is asked for again. */
  readonly failed: boolean;
  /** Revoked now: its partner is told once the whole report is judged. */
  readonly revoked?: {
    readonly outcome: Extract<LeakOutcome, { label: 'true_positive' }>;
    readonly leak: KeyLeak;
  };
}

/** One reported token judged, and revoked when it is a live key of ours. */
async function judge(entry: ReportedToken, nowMs: number, requestId: string | undefined): Promise<Judged> {
  const hash = tokenHash(entry.token);
  const feedback = (label: TokenFeedback['label']) => ({ token_hash: hash, token_type: entry.type, label });
  const leak = {
    url: leakPlace(entry.url, MAX_LEAK_URL_LENGTH),
    source: leakPlace(entry.source, MAX_LEAK_SOURCE_LENGTH),
    reportedBy: GITHUB_REPORTER,
  };
  let outcome: LeakOutcome;
  try {
    outcome = await revokeLeakedKey(entry.token, leak, nowMs, {
      actor: GITHUB_REPORTER,
      ...(requestId === undefined ? {} : { requestId }),
    });
  } catch (error) {
    logger.error('A reported token could not be judged', { tokenHash: hash, error });
    return { feedback: feedback('false_positive'), failed: true };
  }
  if (outcome.label === 'false_positive') return { feedback: feedback('false_positive'), failed: false };
  metrics.addMetric(LEAKED_KEYS_METRIC, MetricUnit.Count, 1);
  logger.warn('Leaked key revoked', {
    keyPrefix: outcome.key.prefix,
    partnerId: outcome.key.partnerId,
    url: leak.url,
    source: leak.source,
  });
  return { feedback: feedback('true_positive'), failed: false, revoked: { outcome, leak } };
}

/** The partner's notice of a key revoked as leaked; the key stays revoked whatever happens to it. */
async function tellThePartner({ outcome, leak }: NonNullable<Judged['revoked']>): Promise<void> {
  try {
    const notice = await leakNoticeOf(outcome, leak, Date.now());
    if (notice) {
      // Loaded when a notice goes out (rarely): the SES client is no part of a cold start.
      const { sendMail } = await import('../common/mail');
      await sendMail(notice);
    }
  } catch (error) {
    // Operators see the failure (metric, alarm) and tell the partner themselves.
    metrics.addMetric(LEAK_NOTICES_FAILED_METRIC, MetricUnit.Count, 1);
    logger.error('The notice of a leaked key could not be sent', { keyPrefix: outcome.key.prefix, error });
  }
}

async function answer(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId;
  const identifier = headerValue(event.headers, KEY_IDENTIFIER_HEADER);
  const signature = headerValue(event.headers, KEY_SIGNATURE_HEADER);
  if (!identifier || !signature)
    return problem(
      'invalid-signature',
      'Send the report signed, as GitHub does: the Github-Public-Key-Identifier and Github-Public-Key-Signature headers.',
      requestId,
    );
  const body = rawBody(event);
  if (body.length > MAX_REPORT_BYTES)
    return problem(
      'invalid-request',
      `A report is at most ${MAX_REPORT_BYTES} bytes; nothing was evaluated.`,
      requestId,
    );
  const publicKey = await publicKeyOf(identifier, Date.now());
  if (publicKey === 'unavailable')
    return problem(
      'service-unavailable',
      'The signing keys could not be read just now; send the report again.',
      requestId,
      {
        'Retry-After': String(KEYS_REFETCH_INTERVAL_MS / 1000),
      },
    );
  if (publicKey === undefined || !signatureIsValid(body, signature, publicKey))
    return problem(
      'invalid-signature',
      'The report is not signed by a published secret scanning key; nothing was evaluated.',
      requestId,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return problem('invalid-request', 'The report is not JSON; nothing was evaluated.', requestId);
  }
  const report = secretScanningReportSchema().safeParse(parsed);
  if (!report.success)
    return problem(
      'invalid-request',
      `A report is a JSON array of 1 to ${MAX_REPORTED_TOKENS} objects, each with its token and type as text (url and source as found); nothing was evaluated.`,
      requestId,
    );
  const nowMs = Date.now();
  const judged: Judged[] = [];
  for (let start = 0; start < report.data.length; start += CONCURRENT_TOKENS)
    judged.push(
      ...(await Promise.all(
        report.data.slice(start, start + CONCURRENT_TOKENS).map((entry) => judge(entry, nowMs, requestId)),
      )),
    );
  for (const entry of judged) if (entry.revoked) await tellThePartner(entry.revoked);
  // A token that could not be judged is asked for again: the whole report, whose live keys are revoked by now.
  if (judged.some((entry) => entry.failed))
    return problem(
      'service-unavailable',
      'Some tokens could not be judged just now; send the report again.',
      requestId,
      {
        'Retry-After': '5',
      },
    );
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    body: JSON.stringify(judged.map((entry) => entry.feedback)),
  };
}

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> {
  if (context) logger.addContext(context);
  logger.appendKeys({ requestId: event.requestContext?.requestId });
  try {
    return await answer(event);
  } catch (error) {
    const transient = isTransientAwsError(error);
    logger.error('A secret scanning report failed', { error });
    return transient
      ? problem(
          'service-unavailable',
          'The service is busy; send the report again.',
          event.requestContext?.requestId,
          {
            'Retry-After': '5',
          },
        )
      : problem(
          'internal-error',
          'Something went wrong on our side; send the report again.',
          event.requestContext?.requestId,
        );
  } finally {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    logger.resetKeys();
  }
}
