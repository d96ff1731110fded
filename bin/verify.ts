import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { deployedTarget } from '../cli/deployed-target';
import { localTarget } from '../cli/local-target';
import { liveRuntimes, localDirectory } from '../emulator/runtime';
import { STACK_OUTPUTS, stackName } from '../lib/stage-config';
import { pendingMigrationLines } from '../operations/data-migrations';
import { deployedAuthorizerFailureProbe, localAuthorizerFailureProbe } from '../verify/aws-probe';
import { backupProbeOf } from '../verify/backup-probe';
import { reportLine, tally } from '../verify/checks';
import { verifyStage } from '../verify/deploy-checks';
import type { VerifyContext } from '../verify/deploy-checks/stage-run';

/**
 * `npm run verify`: the deployer's proof, right after `cdk deploy`, of what only AWS can show (the
 * table of checks is verify/deploy-checks.ts). It differs from `npm run smoke` (bin/smoke.ts) in
 * who can run it and what it touches: it needs AWS credentials for the stage's account, creates a
 * test partner, writes and deletes items and may fire an alarm, to prove IAM and API Gateway
 * behaviour call by call; smoke needs only a partner key, writes nothing, and checks the contract
 * that key sees. Both run their tables with the same runner and print the same report
 * (verify/checks.ts); docs/deploying.md says more ("Two commands, one runner").
 */

const USAGE = `Usage: npm run verify -- --stage sandbox|production|local [options]
  Proves, minutes after "cdk deploy", what only AWS can show: every call whose IAM policy or API
  Gateway behaviour no local test proves. First the queries on the global index (pricing signals,
  marketplace, onboarding, audit list), whose IAM reading no simulator settles; then the authorizer
  and limiter, a full activation with its provisioning transaction, HEAD and If-None-Match on every
  GET route, a forced authorizer failure counted by the answered-5xx metric filter, properties,
  gzip with and without Accept, 405, 406, the WAF, audit list, traffic, and where the stage keeps
  AWS Backup, a recovery point of the table under a day old and its copy. It approves a throw-away
  test partner, prints one line per check (a failure names the AWS call and the policy statement to
  look at), then revokes the key, suspends the partner, deletes what it wrote and erases its test host
  as the platform asks (HostErasureRequested); the partner stays, suspended, named as test data.
  --stage                  the deployed stage (your AWS credentials and region), or local (npm start)
  --operator-role ARN      run audit list and traffic as this role limited to the stack's
                           OperatorPolicy (sts:AssumeRole with the policy as session policy), to prove
                           that policy itself; without it they run with your credentials
  --traffic-wait-seconds N how long to wait for the access log to show the run's requests
                           (default 300 on a deployed stage, where delivery is asynchronous; 0 locally)
  --force-authorizer-failure
                           on production too: deny the authorizer's role the read of never-issued
                           keys for a minute and present one (done by default on sandbox and local).
                           On production the authorizer-failures alarm (threshold 1) fires once:
                           run it when the on-call expects it
  --timeout-ms N           per request (default 15000)`;

interface Options {
  readonly stage: 'local' | 'sandbox' | 'production';
  readonly operatorRole?: string;
  readonly trafficWaitMs: number;
  readonly timeoutMs: number;
  readonly forceAuthorizerFailure: boolean;
}

function readOptions(): Options {
  try {
    const { values } = parseArgs({
      options: {
        stage: { type: 'string' },
        'operator-role': { type: 'string' },
        'traffic-wait-seconds': { type: 'string' },
        'timeout-ms': { type: 'string', default: '15000' },
        'force-authorizer-failure': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const stage = values.stage;
    if (stage !== 'local' && stage !== 'sandbox' && stage !== 'production')
      throw new Error(`--stage must be sandbox, production or local; got "${stage ?? ''}".`);
    const number = (name: string, value: string) => {
      const parsed = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed))
        throw new Error(`${name} must be a whole number.`);
      return parsed;
    };
    const operatorRole = values['operator-role'];
    if (
      operatorRole !== undefined &&
      (stage === 'local' || !/^arn:aws[\w-]*:iam::\d{12}:role\/.+$/.test(operatorRole))
    )
      throw new Error(
        '--operator-role is the ARN of an IAM role (arn:aws:iam::<account>:role/<name>), on a deployed stage.',
      );
    return {
      stage,
      ...(operatorRole ? { operatorRole } : {}),
      trafficWaitMs:
        1000 *
        number('--traffic-wait-seconds', values['traffic-wait-seconds'] ?? (stage === 'local' ? '0' : '300')),
      timeoutMs: number('--timeout-ms', values['timeout-ms']),
      forceAuthorizerFailure: stage !== 'production' || values['force-authorizer-failure'] === true,
    };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const OPERATOR_STATEMENTS = {
  audit: 'OperatorPolicy statements ReadAuditTrail and FindPartner',
  traffic: 'OperatorPolicy statement QueryApiAccessLog',
};

/** The environment of the operator CLI runs: the operator role's session limited to OperatorPolicy, when given. */
async function operatorSession(
  options: Options,
): Promise<Pick<VerifyContext, 'operatorEnvironment' | 'operatorIdentity'>> {
  if (options.stage === 'local' || !options.operatorRole)
    return {
      operatorEnvironment: process.env,
      operatorIdentity:
        options.stage === 'local'
          ? 'local'
          : 'with your credentials; --operator-role proves the OperatorPolicy itself',
    };
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName(options.stage) }),
  );
  const policyArn = Stacks?.[0]?.Outputs?.find(
    (output) => output.OutputKey === STACK_OUTPUTS.operatorPolicyArn,
  )?.OutputValue;
  if (!policyArn)
    throw new Error(`Stack ${stackName(options.stage)} has no ${STACK_OUTPUTS.operatorPolicyArn} output.`);
  const { Credentials } = await new STSClient({}).send(
    new AssumeRoleCommand({
      RoleArn: options.operatorRole,
      RoleSessionName: 'deploy-verification',
      PolicyArns: [{ arn: policyArn }],
      DurationSeconds: 3600,
    }),
  );
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey || !Credentials.SessionToken)
    throw new Error(`sts:AssumeRole of ${options.operatorRole} returned no credentials.`);
  const { AWS_PROFILE: _profile, ...environment } = process.env;
  return {
    operatorEnvironment: {
      ...environment,
      AWS_ACCESS_KEY_ID: Credentials.AccessKeyId,
      AWS_SECRET_ACCESS_KEY: Credentials.SecretAccessKey,
      AWS_SESSION_TOKEN: Credentials.SessionToken,
    },
    operatorIdentity: `as ${options.operatorRole} limited to ${policyArn}`,
  };
}

/** The authorizer-failure check's AWS clients and names, or why this run does not force a failure. */
async function authorizerFailure(options: Options): Promise<VerifyContext['authorizerFailure']> {
  if (options.stage === 'local') {
    const [runtime] = await liveRuntimes(localDirectory());
    if (!runtime) throw new Error('No local server is running: start one with "npm start".');
    return localAuthorizerFailureProbe(runtime);
  }
  if (!options.forceAuthorizerFailure)
    return {
      skip: 'production: forcing one fires the authorizer-failures alarm (threshold 1); run with --force-authorizer-failure when the on-call expects it (sandbox forces one on every run)',
    };
  return deployedAuthorizerFailureProbe(
    options.stage,
    new CloudFormationClient({}),
    Math.max(options.trafficWaitMs, 60_000),
  );
}

const options = readOptions();
try {
  const target = options.stage === 'local' ? await localTarget() : await deployedTarget(options.stage);
  console.log(
    `Deploy verification of ${options.stage}: ${target.apiBaseUrl} and ${target.activationBaseUrl}`,
  );
  const results = await verifyStage(
    {
      target,
      timeoutMs: options.timeoutMs,
      trafficWaitMs: options.trafficWaitMs,
      firewall: options.stage !== 'local',
      ...(await operatorSession(options)),
      operatorStatements: OPERATOR_STATEMENTS,
      authorizerFailure: await authorizerFailure(options),
      backups: await backupProbeOf(options.stage, options.timeoutMs),
    },
    (result) => console.log(reportLine(result)),
  );
  const count = tally(results);
  console.log(
    `Verification of ${options.stage}: ${count.PASS} checks passed, ${count.FAIL} failed, ${count.SKIP} skipped.`,
  );
  // A reminder, not a check: deploy, then migrate, then verify (docs/deploying.md).
  for (const line of await pendingMigrationLines(options.stage === 'local' ? undefined : options.stage))
    console.log(line);
  process.exitCode = count.FAIL === 0 ? 0 : 1;
} catch (error) {
  const { name, message } = error as Error;
  console.error(`Verification stopped: ${name && name !== 'Error' ? `${name}: ` : ''}${message}`);
  process.exitCode = 1;
}
