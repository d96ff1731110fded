import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { localEnvironment, startLocalService } from '../../lib/local/service';

declare module 'vitest' {
  export interface ProvidedContext {
    apiBaseUrl: string;
    activationBaseUrl: string;
    localDirectory: string;
    localEnvironment: Record<string, string>;
    demoKey: string;
    metricsOnlyKey: string;
  }
}

/**
 * One local service per suite run, exactly as `npm start` builds it (DynamoDB Local in
 * memory, seeded, real handlers over HTTP) on a free port and in a throwaway folder.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'partner-api-test-'));
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  const service = await startLocalService({
    host: '127.0.0.1',
    port: 0,
    directory,
    persist: false,
    log: () => undefined,
  });
  project.provide('apiBaseUrl', service.apiBaseUrl);
  project.provide('activationBaseUrl', service.activationBaseUrl);
  project.provide('localDirectory', directory);
  project.provide('localEnvironment', {
    ...localEnvironment({ dynamoDbEndpoint: service.dynamoDbEndpoint, secretsFile: service.secretsFile }),
    PARTNER_API_LOCAL_DIR: directory,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  project.provide('demoKey', service.demoKeys[0]?.key ?? '');
  project.provide('metricsOnlyKey', service.demoKeys[1]?.key ?? '');
  return async () => {
    await service.stop();
    await rm(directory, { recursive: true, force: true });
  };
}
