import { parseApiKey } from './domain/api-key';

/**
 * What the stage's CloudWatch Synthetics canary (lib/constructs/partner-api-canary.ts) and its
 * script (lambdas/canary/) agree on: the environment the script reads, and the secret's shape the
 * operator stores its key in (docs/deploying.md#the-canary).
 */

/** The canary script's environment variables. */
export const CANARY_ENVIRONMENT = {
  /** The partner API's base URL, ending in /partner-api/v1 (the stack's `ApiBaseUrl`). */
  baseUrl: 'API_BASE_URL',
  /** The ARN of the secret that holds the canary's key. */
  secretArn: 'CANARY_SECRET_ARN',
} as const;

/**
 * The canary's secret, as JSON: `{"key":"svc_…"}`, and optionally the property whose pricing
 * signals it checks (`"propertyId": 1`; default: the first property `GET /properties` lists).
 * The stack creates it with `key` empty: the canary fails, saying so, until an operator stores one.
 */
export interface CanarySecret {
  readonly key: string;
  readonly propertyId?: number;
}

/** The canary secret's value, or why it holds no usable key (never quoting what it holds). */
export function parseCanarySecret(value: string): CanarySecret | { readonly problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problem: 'the secret is not JSON ({"key":"svc_…"})' };
  }
  const { key, propertyId } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  if (typeof key !== 'string' || key === '')
    return { problem: 'the secret holds no key yet (docs/deploying.md#the-canary says how to store one)' };
  // Checked before any request: a key with a stray character would otherwise fail inside fetch,
  // whose error quotes the header value, key and all.
  const checked = parseApiKey(key);
  if (!checked.ok)
    return {
      problem: `the secret's key is not a partner API key as its reveal page showed it (${checked.reason === 'checksum' ? 'a character is wrong' : 'not its shape'}): store it again`,
    };
  if (propertyId !== undefined && !(Number.isSafeInteger(propertyId) && (propertyId as number) > 0))
    return { problem: "the secret's propertyId is not a positive integer" };
  return propertyId === undefined ? { key } : { key, propertyId: propertyId as number };
}
