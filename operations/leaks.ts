import { readFile } from 'node:fs/promises';
import type { TokenFeedback } from '../core/contract/secret-scanning';
import {
  KEY_IDENTIFIER_HEADER,
  KEY_SIGNATURE_HEADER,
  signReport,
  tokenHash,
} from '../core/contract/secret-scanning';
import { parseApiKey } from '../core/domain/api-key';
import { getApiKey } from '../lambdas/data/api-keys';
import { leakNoticeOf, revokeLeakedKey } from '../lambdas/data/leaked-keys';
import type { OutgoingMail } from './mailer';
import { OperatorError } from './operator-error';
import type { OperatorTarget } from './target';

/** What `keys report-leak` did with a reported token (never the token: its prefix and hash). */
export interface LeakReportResult {
  /** How it was judged: a signed report to the local server (as GitHub sends), or here, directly. */
  readonly via: 'signed-report' | 'direct';
  readonly key_prefix: string | null;
  readonly token_hash: string;
  readonly label: TokenFeedback['label'];
  readonly revoked_at: string | null;
}

/**
 * A leak reported another way than by GitHub's scanning (a partner's e-mail, GitLab's revocation
 * API, our own scans), acted on as GitHub's reports are (docs/design/api-keys.md#when-a-key-leaks).
 * Locally, when the server made its own reporter key pair, this plays GitHub's part: it signs a
 * report and posts it to the running server, so the whole path runs. Elsewhere it judges the token
 * itself, in the operator's name, and gives the partner's notice to send.
 */
export async function reportLeak(
  target: OperatorTarget,
  input: { readonly token: string; readonly url: string; readonly source: string },
  nowMs: number,
): Promise<{ result: LeakReportResult; mail?: OutgoingMail }> {
  const parsed = parseApiKey(input.token);
  const keyPrefix = parsed.ok ? parsed.prefix : null;
  const hash = tokenHash(input.token);
  const reporter = target.secretScanningReporter;
  if (reporter) {
    // The reporter is GitHub's part, played here: who ran the command goes with the source.
    const body = JSON.stringify([
      {
        token: input.token,
        type: 'partner_api_key',
        url: input.url,
        source: `${input.source} (keys report-leak by ${target.actor})`,
      },
    ]);
    const privateKey = await readFile(reporter.privateKeyFile, 'utf8');
    let response: Response;
    try {
      response = await fetch(reporter.reportUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [KEY_IDENTIFIER_HEADER]: reporter.keyIdentifier,
          [KEY_SIGNATURE_HEADER]: signReport(body, privateKey),
        },
        body,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new OperatorError(
        `The local server at ${reporter.reportUrl} did not answer (${(error as Error).message}).`,
      );
    }
    const answer = (await response.json().catch(() => undefined)) as
      | TokenFeedback[]
      | { detail?: string }
      | undefined;
    if (!response.ok || !Array.isArray(answer))
      throw new OperatorError(
        `The local server refused the report (${response.status}): ${(answer as { detail?: string } | undefined)?.detail ?? 'no detail'}`,
      );
    const label = answer[0]?.label ?? 'false_positive';
    const revokedAt =
      label === 'true_positive' && keyPrefix !== null
        ? ((await getApiKey(keyPrefix, { consistent: true }))?.revokedAt ?? null)
        : null;
    return {
      result: { via: 'signed-report', key_prefix: keyPrefix, token_hash: hash, label, revoked_at: revokedAt },
    };
  }
  const leak = { url: input.url, source: input.source, reportedBy: target.actor };
  const outcome = await revokeLeakedKey(input.token, leak, nowMs, { actor: target.actor });
  const judged = (revokedAt: string | null): LeakReportResult => ({
    via: 'direct',
    key_prefix: keyPrefix,
    token_hash: hash,
    label: outcome.label,
    revoked_at: revokedAt,
  });
  if (outcome.label === 'false_positive') return { result: judged(null) };
  await target.usagePlanKeys?.remove(outcome.key.prefix);
  const mail = await leakNoticeOf(outcome, leak, nowMs);
  return { result: judged(outcome.revokedAt), ...(mail ? { mail } : {}) };
}
