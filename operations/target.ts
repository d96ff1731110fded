import type { Stage } from '../core/stages';
import type { AccessLogReader } from './access-log-reader';
import type { Mailer } from './mailer';

/** API Gateway API keys that tie partner keys to the usage plan (deployed stages only). */
export interface UsagePlanKeys {
  /** Creates an API Gateway key for a partner key, attaches it to the plan, returns its value. */
  issue(keyPrefix: string, partnerSlug: string): Promise<string>;
  /**
   * Deletes the API Gateway key of a partner key that no longer works (revoked, expired, or never
   * stored), which also takes it out of the usage plan: a region holds at most 10,000 API keys.
   */
  remove(keyPrefix: string): Promise<void>;
}

/** What operator commands run against: the local server or a deployed stage. */
export interface OperatorTarget {
  readonly stage: Stage;
  /** Who acts, as the audit trail records it: an AWS identity ARN, or the local user name. */
  readonly actor: string;
  /** Base URL of the partner API (ends in /partner-api/v1): partners learn it from the reveal e-mail. */
  readonly apiBaseUrl: string;
  /** Base URL of the reveal and activation pages. */
  readonly activationBaseUrl: string;
  readonly mailer: Mailer;
  readonly usagePlanKeys?: UsagePlanKeys;
  /** Where `traffic` reads the stage's access log (the local file, or Logs Insights). */
  readonly accessLog?: AccessLogReader;
  /**
   * Locally, the reporter `keys report-leak` plays (GitHub's part): where it posts a signed report,
   * and the key pair the server trusts. None on a deployed stage, whose reporter is GitHub itself.
   */
  readonly secretScanningReporter?: {
    readonly reportUrl: string;
    readonly privateKeyFile: string;
    readonly keyIdentifier: string;
  };
}
