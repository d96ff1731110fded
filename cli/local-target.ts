import { join } from 'node:path';
import { SECRET_SCANNING_PATH } from '../core/routes';
import { accessLogPath, localAccessLog } from '../emulator/access-log';
import { liveRuntimes, localDirectory } from '../emulator/runtime';
import { localEnvironment } from '../emulator/service';
import { useServiceEnvironment } from '../lambdas/common/config';
import { outboxMailer } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import { localOperator } from './operator-identity';

/**
 * The running local server: the data modules act on its DynamoDB Local, through its settings.
 * Of several servers running from the same folder, the newest; `notice` says which.
 */
export async function localTarget(notice: (text: string) => void = () => undefined): Promise<OperatorTarget> {
  const directory = localDirectory();
  const [runtime, ...others] = await liveRuntimes(directory);
  if (!runtime) {
    throw new OperatorError(
      `No local server is running from ${directory} (no server whose file is in ${join(directory, 'runtime')} is alive and answers). Start one with "npm start" in another terminal, or pass --stage sandbox|production.`,
    );
  }
  if (others.length > 0)
    notice(
      `${others.length + 1} local servers are running from ${directory}; acting on the newest, ${runtime.apiBaseUrl} (process ${runtime.pid}, started ${runtime.startedAt}).`,
    );
  useServiceEnvironment(localEnvironment(runtime));
  return {
    stage: 'local',
    actor: localOperator(),
    apiBaseUrl: runtime.apiBaseUrl,
    activationBaseUrl: runtime.activationBaseUrl,
    mailer: outboxMailer(runtime.outboxDirectory),
    accessLog: localAccessLog(accessLogPath(directory)),
    ...(runtime.secretScanning
      ? {
          secretScanningReporter: {
            reportUrl: runtime.activationBaseUrl + SECRET_SCANNING_PATH,
            ...runtime.secretScanning,
          },
        }
      : {}),
  };
}
