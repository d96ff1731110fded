import { createHash, sign, verify } from 'node:crypto';
import * as z from 'zod/mini';
import { withoutControlCharacters } from '../domain/text';
import { onFirstUse } from './reservation-schema';

/*
 * Reports of leaked keys, as GitHub's secret scanning partner program sends them
 * (docs/design/api-keys.md#when-a-key-leaks): a JSON array of matches, signed with ECDSA (NIST
 * P-256, SHA-256, base64 DER) by a key GitHub publishes, answered with one feedback entry per
 * token. https://docs.github.com/en/code-security/secret-scanning/secret-scanning-partner-program
 */

/** Which of GitHub's published keys signed the body, and the signature (HTTP header names, any case). */
export const KEY_IDENTIFIER_HEADER = 'github-public-key-identifier';
export const KEY_SIGNATURE_HEADER = 'github-public-key-signature';

/** GitHub's list of its signing keys: the default of the stage setting `secretScanningKeysUrl`. */
export const GITHUB_SECRET_SCANNING_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';

/** At most this many matches in one report, and this many bytes of body; more is a 400, nothing evaluated. */
export const MAX_REPORTED_TOKENS = 1_000;
export const MAX_REPORT_BYTES = 1_000_000;

/**
 * The one problem of the endpoint the partner API never answers (so not in its catalogue, which
 * the partner API's document and client enumerate): a report no published key signed.
 */
export const INVALID_SIGNATURE_PROBLEM = {
  name: 'invalid-signature',
  status: 401,
  title: 'Signature not valid',
} as const;

/** Metrics of the endpoint (the stage's namespace): keys revoked as leaked, and notices that failed to go out. */
export const LEAKED_KEYS_METRIC = 'LeakedKeysRevoked';
export const LEAK_NOTICES_FAILED_METRIC = 'LeakNoticesFailed';

/** How often, at most, an unknown key identifier makes the function fetch the published keys again. */
export const KEYS_REFETCH_INTERVAL_MS = 60_000;

/**
 * How long an instance trusts the list it read: a key GitHub withdraws (a compromised one) stops
 * counting within this, even if no unknown identifier comes to make the function read the list.
 */
export const KEYS_MAX_AGE_MS = 10 * 60_000;

/** How much of where a token was found is kept (the audit trail, the key, the partner's mail). */
export const MAX_LEAK_URL_LENGTH = 2_000;
export const MAX_LEAK_SOURCE_LENGTH = 200;

/**
 * Where a token was found, as kept: one line (control, line-break and direction characters become
 * spaces, so a crafted URL can neither forge a line of the partner's mail nor break a table), cut to
 * `maxLength`. A value that is not text is none.
 */
export function leakPlace(value: unknown, maxLength: number): string {
  if (typeof value !== 'string') return '';
  const line = withoutControlCharacters(value, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}

/**
 * A report: each entry needs its token and type as text (the feedback names them); its url and
 * source are GitHub's to send as they are, so a long or odd one is kept cut (`leakPlace`), never a
 * reason to refuse the report and leave a real leak in it unrevoked.
 */
const reportedToken = () =>
  z.object({
    token: z.string().check(z.minLength(1)),
    type: z.string().check(z.minLength(1), z.maxLength(200)),
    url: z.optional(z.unknown()),
    source: z.optional(z.unknown()),
  });
export type ReportedToken = z.infer<ReturnType<typeof reportedToken>>;

/** Built on first use: a cold start does not pay for schemas (docs/design/README.md#cold-start-is-billed). */
export const secretScanningReportSchema = onFirstUse(() =>
  z.array(reportedToken()).check(z.minLength(1), z.maxLength(MAX_REPORTED_TOKENS)),
);

/** GitHub's feedback on one reported token: whether it was a live secret of ours. */
export interface TokenFeedback {
  readonly token_hash: string;
  readonly token_type: string;
  readonly label: 'true_positive' | 'false_positive';
}

/** The document of `secretScanningKeysUrl`: GitHub's format. */
export const publicKeysDocumentSchema = onFirstUse(() =>
  z.object({
    public_keys: z.array(
      z.object({
        key_identifier: z.string().check(z.minLength(1)),
        key: z.string().check(z.minLength(1)),
        is_current: z.optional(z.boolean()),
      }),
    ),
  }),
);
export type PublicKeysDocument = z.infer<ReturnType<typeof publicKeysDocumentSchema>>;

/** Lowercase hex SHA-256 of a token: how the feedback names it (never the token itself). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether `signature` (base64 DER) is an ECDSA P-256/SHA-256 signature of the raw body by the
 * PEM public key. Anything unreadable (a key that is not EC, a signature that is not DER) is false.
 */
export function signatureIsValid(rawBody: Buffer, signature: string, publicKeyPem: string): boolean {
  try {
    return verify(
      'sha256',
      rawBody,
      { key: publicKeyPem, dsaEncoding: 'der' },
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** Signs a report's body as GitHub does (base64 DER ECDSA over SHA-256): the local reporter and the tests. */
export function signReport(rawBody: string, privateKeyPem: string): string {
  return sign('sha256', Buffer.from(rawBody, 'utf8'), { key: privateKeyPem, dsaEncoding: 'der' }).toString(
    'base64',
  );
}
