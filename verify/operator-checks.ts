import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Verdict } from './checks';
import { fail, pass } from './checks';

/**
 * The deploy verification's checks of the operator CLI's reads (`npm run admin -- audit list` and
 * `traffic`), run as operators run them: a child process, with the operator policy's credentials
 * when the run was given a role.
 */

const run = promisify(execFile);

/** How the operator CLI runs, and what its lines say about whose permissions it used. */
export interface OperatorSettings {
  /** How long to wait for the access log to show the run's requests (delivery is asynchronous in AWS). */
  readonly trafficWaitMs: number;
  /** Environment of the operator CLI runs (`audit list`, `traffic`): credentials of the operator policy, if given. */
  readonly operatorEnvironment: NodeJS.ProcessEnv;
  /** Said in the `audit list` and `traffic` lines: whose permissions those runs used. */
  readonly operatorIdentity: string;
  /** Statements of the operator policy, by command, as the stack names them. */
  readonly operatorStatements: { readonly audit: string; readonly traffic: string };
}

interface CliAnswer {
  readonly code: number;
  readonly json?: Record<string, unknown>;
  readonly error: string;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the operator CLI as operators do (`npm run admin`), with the operator policy's credentials when given. */
async function operatorCli(settings: OperatorSettings, stage: string, args: string[]): Promise<CliAnswer> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', '--stage', stage, ...args, '--json'],
      { env: settings.operatorEnvironment, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, error: '' };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      error: (failed.stderr || failed.message).trim().split('\n')[0] ?? '',
    };
  }
}

/**
 * The operator's index query: `audit list` without a partner reads the whole trail through the
 * index (LeadingKeys AUDIT), here since the run started and for approvals only; the test partner's
 * approval must be in it. The index is updated asynchronously, so it gets a few tries.
 */
export async function auditTrailThroughIndex(
  settings: OperatorSettings,
  stage: string,
  since: string,
  slug: string,
): Promise<Verdict> {
  const args = ['audit', 'list', '--since', since, '--action', 'partner.approved', '--limit', '200'];
  let audit = await operatorCli(settings, stage, args);
  const events = () => (audit.json?.events ?? []) as { partner?: string }[];
  const found = () => events().some((event) => event.partner === slug);
  for (let attempt = 1; audit.code === 0 && !found() && attempt < 5; attempt += 1) {
    await wait(2_000);
    audit = await operatorCli(settings, stage, args);
  }
  return audit.code === 0 && found()
    ? pass(
        `the test partner's approval among ${events().length} since the run started (${settings.operatorIdentity})`,
      )
    : fail(
        audit.code === 0 ? `the approval of ${slug} is not in the trail's index` : audit.error,
        `dynamodb:Query on the index with LeadingKeys AUDIT (${settings.operatorStatements.audit}; ${settings.operatorIdentity})`,
      );
}

/** One partner's audit trail holds what the run did: its approval, the reveal, the link. */
export async function partnerAuditTrail(
  settings: OperatorSettings,
  stage: string,
  slug: string,
): Promise<Verdict> {
  const audit = await operatorCli(settings, stage, ['audit', 'list', '--partner', slug, '--limit', '50']);
  const actions = new Set(((audit.json?.events ?? []) as { action: string }[]).map((event) => event.action));
  const expected = ['partner.approved', 'key.revealed', 'link.created'];
  if (audit.code === 0 && expected.every((action) => actions.has(action)))
    return pass(`${actions.size} kinds of event (${settings.operatorIdentity})`);
  return fail(
    audit.code === 0
      ? `missing ${expected.filter((action) => !actions.has(action)).join(', ')}`
      : audit.error,
    `dynamodb:GetItem PARTNERSLUG# and Query AUDIT# with LeadingKeys (${settings.operatorStatements.audit}; ${settings.operatorIdentity})`,
  );
}

/** `traffic` counts the test partner's requests (Logs Insights), waiting for the access log to arrive. */
export async function partnerTraffic(
  settings: OperatorSettings,
  stage: string,
  slug: string,
): Promise<Verdict> {
  const args = ['traffic', '--partner', slug, '--days', '1'];
  const deadline = Date.now() + settings.trafficWaitMs;
  let traffic = await operatorCli(settings, stage, args);
  const counted = () =>
    ((traffic.json?.days ?? []) as { requests: number }[]).reduce((sum, day) => sum + day.requests, 0);
  while (traffic.code === 0 && counted() === 0 && Date.now() < deadline) {
    await wait(10_000);
    traffic = await operatorCli(settings, stage, args);
  }
  if (traffic.code === 0 && counted() > 0)
    return pass(`${counted()} requests of the test partner counted (${settings.operatorIdentity})`);
  return fail(
    traffic.code === 0
      ? `the query ran but counted nothing within ${settings.trafficWaitMs / 1000} s (access-log delivery can lag: rerun "npm run admin -- traffic --partner ${slug}")`
      : traffic.error,
    `logs:StartQuery and logs:GetQueryResults on the access log group (${settings.operatorStatements.traffic}; ${settings.operatorIdentity})`,
  );
}
