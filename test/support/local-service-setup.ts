import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { API_BASE_PATH, serviceFunctions } from '../../core/routes';
import { localEnvironment, startLocalService } from '../../emulator/service';
import { contractChecker } from '../../openapi/contract';
import { partnerApiDocument } from '../../openapi/document';
import { checkRecordedCalls, functionsWithAccess } from './iam';

declare module 'vitest' {
  export interface ProvidedContext {
    apiBaseUrl: string;
    activationBaseUrl: string;
    localDirectory: string;
    localEnvironment: Record<string, string>;
    demoKey: string;
    metricsOnlyKey: string;
    /** Secret ARNs the functions are given (tests that run a page's handler in-process need them). */
    secretArns: Record<string, string>;
    /** The local platform's inbox: the SQS queue the service's own events are forwarded to. */
    platformInboxUrl: string;
  }
}

/**
 * One local service per suite run, exactly as `npm start` builds it (DynamoDB Local in
 * memory, seeded, real handlers over HTTP) on a free port and in a throwaway folder. Every API
 * response the suite receives is checked against the OpenAPI document (the contract check):
 * any undocumented status, header or field fails the run when the suite ends.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'partner-api-test-'));
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  const check = contractChecker(partnerApiDocument());
  const violations: string[] = [];
  let checked = 0;
  const service = await startLocalService({
    host: '127.0.0.1',
    port: 0,
    directory,
    persist: false,
    recordAwsCalls: true,
    // `npm run test:deployed`: the bundles `cdk synth` built, not the sources.
    ...(process.env.PARTNER_API_BUNDLES ? { deployedBundles: process.env.PARTNER_API_BUNDLES } : {}),
    log: () => undefined,
    observe: (exchange) => {
      if (!exchange.path.startsWith(API_BASE_PATH) || exchange.path.startsWith(`${API_BASE_PATH}/docs`))
        return;
      checked += 1;
      violations.push(...check(exchange));
    },
  });
  project.provide('apiBaseUrl', service.apiBaseUrl);
  project.provide('activationBaseUrl', service.activationBaseUrl);
  project.provide('localDirectory', directory);
  project.provide('localEnvironment', {
    ...localEnvironment(service),
    PARTNER_API_LOCAL_DIR: directory,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  project.provide('secretArns', { ...service.secretArns });
  project.provide('platformInboxUrl', service.platformInboxUrl);
  project.provide('demoKey', service.demoKeys[0]?.key ?? '');
  project.provide('metricsOnlyKey', service.demoKeys[1]?.key ?? '');
  return async () => {
    const calls = service.awsCalls();
    await service.stop();
    await rm(directory, { recursive: true, force: true });
    // IAM: every call a function made must be one its synthesized policy allows.
    const functionNames = functionsWithAccess(serviceFunctions);
    const iam = await checkRecordedCalls(calls, functionNames);
    if (iam.denied.length > 0)
      throw new Error(
        `${iam.denied.length} call(s) the synthesized IAM policies would deny:\n${iam.denied.join('\n')}`,
      );
    console.log(
      `IAM check: ${iam.distinct} distinct calls of ${functionNames.length - iam.silent.length} functions are allowed by their synthesized policies${iam.silent.length > 0 ? ` (no call from ${iam.silent.join(', ')})` : ''}.`,
    );
    if (violations.length > 0) {
      const unique = [...new Set(violations)];
      throw new Error(
        `${unique.length} response(s) of ${checked} do not match openapi/partner-api.json:\n${unique.slice(0, 25).join('\n')}`,
      );
    }
    console.log(`Contract check: ${checked} API responses match openapi/partner-api.json.`);
  };
}
