import { randomBytes } from 'node:crypto';
import { BrowserSession } from './browser-session';
import type { CheckResult, CheckRow } from './checks';
import { runChecks } from './checks';
import { approveCheck } from './deploy-checks/approve-test-partner';
import { countFailureCheck, forceFailureCheck } from './deploy-checks/authorizer-failure';
import { firewallCheck } from './deploy-checks/blocked-by-the-firewall';
import { cleanUpCheck } from './deploy-checks/clean-up';
import { wizardCheck } from './deploy-checks/complete-the-wizard';
import { gzipCheck } from './deploy-checks/gzipped';
import { headChecks } from './deploy-checks/head';
import { indexQueryChecks } from './deploy-checks/index-queries';
import { marketplaceIndexCheck } from './deploy-checks/marketplace-through-index';
import { methodNotAllowedCheck } from './deploy-checks/method-not-allowed';
import { notAcceptableCheck } from './deploy-checks/not-acceptable';
import { onboardingIndexCheck } from './deploy-checks/onboarding-through-index';
import { openLinkCheck } from './deploy-checks/open-activation-link';
import { operatorIndexCheck } from './deploy-checks/operator-index-query';
import { auditTrailCheck } from './deploy-checks/partner-audit-trail';
import { trafficCheck } from './deploy-checks/partner-traffic';
import { propertiesCheck } from './deploy-checks/properties';
import { provisionCheck } from './deploy-checks/provision-the-host';
import { backupCheck } from './deploy-checks/recent-copied-backup';
import { revalidationChecks } from './deploy-checks/revalidation';
import { revealCheck } from './deploy-checks/reveal-the-key';
import type { StageRun, VerifyContext } from './deploy-checks/stage-run';
import { unsignedLeakReportCheck } from './deploy-checks/unsigned-leak-report';
import { usageCheck } from './deploy-checks/usage';
import { noAcceptCheck } from './deploy-checks/without-accept';

/**
 * The deploy verification (`npm run verify`, docs/deploying.md): every call whose IAM policy or API
 * Gateway behaviour no local test can prove, made for real against a stage with a throw-away test
 * partner. It is the table DEPLOY_CHECKS below, run in order by `runChecks` (checks.ts); each row is
 * a named check of its own file in deploy-checks/ (as cdk-nag keeps one rule per file), returning
 * pass, fail (with the AWS call it makes and the statement that allows it, so a failure points at the
 * statement to fix) or skip (with the reason). A check that uses what an earlier one makes (the
 * partner, its key, the browser session) names it in `needs`.
 *
 * `npm run smoke` (smoke-checks.ts) shares the runner and the report but not the table: it needs
 * only a partner key and writes nothing, where this needs AWS credentials and creates test data.
 */

/** What the index checks need before them: the partner, its key, the activation and the provisioning. */
export const PREREQUISITE_CHECKS = [approveCheck, revealCheck, openLinkCheck, provisionCheck].map(
  (check) => check.name,
);

/**
 * The checks, in the order of the report: first the index queries, right after what they need (the
 * partner, its key, the activation link), so that a deny is at the top; the clean-up last. `needs`
 * names the check that makes what a row uses (the key, the session's next page, the forced failure).
 */
const DEPLOY_CHECKS: readonly CheckRow<StageRun>[] = [
  approveCheck,
  revealCheck,
  indexQueryChecks,
  operatorIndexCheck,
  openLinkCheck,
  marketplaceIndexCheck,
  provisionCheck,
  onboardingIndexCheck,
  wizardCheck,
  usageCheck,
  headChecks,
  revalidationChecks,
  forceFailureCheck,
  countFailureCheck,
  propertiesCheck,
  gzipCheck,
  noAcceptCheck,
  methodNotAllowedCheck,
  notAcceptableCheck,
  unsignedLeakReportCheck,
  firewallCheck,
  auditTrailCheck,
  trafficCheck,
  backupCheck,
  cleanUpCheck,
];

/** Runs DEPLOY_CHECKS against the context's stage, passing each result to `log` as it comes. */
export async function verifyStage(
  context: VerifyContext,
  log: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const startedAt = new Date().toISOString();
  const stamp = startedAt.replace(/\D/g, '').slice(0, 14);
  const slug = `verify-${stamp}-${randomBytes(2).toString('hex')}`;
  const run: StageRun = {
    context,
    startedAt,
    stamp,
    slug,
    hostName: `Verification host ${stamp}`,
    hostEmail: `host-${stamp}@${slug}.example.com`,
    browser: new BrowserSession(context.timeoutMs),
    created: { indexProperty: [], bulk: [] },
  };
  return runChecks(DEPLOY_CHECKS, run, log, 'the network path to the stage, or your credentials');
}
