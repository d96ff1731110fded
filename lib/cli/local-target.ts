import { useServiceEnvironment } from '../../lambdas/common/config';
import { accessLogPath, localAccessLog } from '../local/access-log';
import { isProcessAlive, localDirectory, readRuntime } from '../local/runtime';
import { localEnvironment } from '../local/service';
import { outboxMailer } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import { localOperator } from './operator-identity';

/** The running local server: the data modules act on its DynamoDB Local, through its settings. */
export async function localTarget(): Promise<OperatorTarget> {
  const directory = localDirectory();
  const runtime = await readRuntime(directory);
  if (!runtime || !isProcessAlive(runtime.pid)) {
    throw new OperatorError(
      `The local server is not running (no live ${directory}/runtime.json). Start it with "npm start" in another terminal, or pass --stage sandbox|production.`,
    );
  }
  useServiceEnvironment(localEnvironment(runtime));
  return {
    stage: 'local',
    actor: localOperator(),
    apiBaseUrl: runtime.apiBaseUrl,
    activationBaseUrl: runtime.activationBaseUrl,
    mailer: outboxMailer(runtime.outboxDirectory),
    accessLog: localAccessLog(accessLogPath(directory)),
  };
}
