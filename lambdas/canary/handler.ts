import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CANARY_ENVIRONMENT, parseCanarySecret } from '../../core/canary';
import type { StepRunner } from './partner-api-checks';
import { checkPartnerApi, failureSummary } from './partner-api-checks';

/**
 * The script of the stage's CloudWatch Synthetics canary (bundled by lib/constructs/partner-api-canary.ts
 * into `nodejs/node_modules/partner-api-canary.js`, handler `partner-api-canary.handler`): reads the
 * canary's key from its secret, checks every route (partner-api-checks.ts), each as a Synthetics
 * step, and fails the run, by throwing, if any step failed. Nothing it logs or throws names the key.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_WritingCanary_Nodejs_Pup.html
 */

/** The Synthetics library of the canary's runtime, on its layer: required by a name the bundler leaves alone. */
const SYNTHETICS_LIBRARY = 'Synthetics';

interface SyntheticsLibrary {
  /** Runs a step: records its duration and pass or fail (a per-step SuccessPercent), rethrows its error. */
  executeStep<T>(stepName: string, functionToExecute: () => Promise<T>): Promise<T>;
}

async function canaryKey(secretArn: string) {
  const secrets = new SecretsManagerClient({});
  const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const secret = parseCanarySecret(SecretString ?? '');
  if ('problem' in secret) throw new Error(`The canary's secret cannot be used: ${secret.problem}.`);
  return secret;
}

export const handler = async (): Promise<string> => {
  const baseUrl = process.env[CANARY_ENVIRONMENT.baseUrl] ?? '';
  const secretArn = process.env[CANARY_ENVIRONMENT.secretArn] ?? '';
  const synthetics = require(SYNTHETICS_LIBRARY) as SyntheticsLibrary;
  const runStep: StepRunner = (name, check) => synthetics.executeStep(name, check);
  const { key, propertyId } = await canaryKey(secretArn);
  const steps = await checkPartnerApi(
    { baseUrl, key, ...(propertyId === undefined ? {} : { propertyId }) },
    { runStep },
  );
  for (const step of steps) console.log(`${step.ok ? 'PASS' : 'FAIL'}  ${step.name}: ${step.detail}`);
  const failed = failureSummary(steps);
  if (failed) throw new Error(`Partner API canary failed: ${failed}`);
  return `${steps.length} steps passed`;
};
