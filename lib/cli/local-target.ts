import { isProcessAlive, localDirectory, readRuntime } from '../local/runtime';
import { localEnvironment } from '../local/service';
import { outboxMailer } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import { localOperator } from './operator-identity';

/** Points the data modules at the running local server's DynamoDB Local. */
export async function localTarget(): Promise<OperatorTarget> {
  const directory = localDirectory();
  const runtime = await readRuntime(directory);
  if (!runtime || !isProcessAlive(runtime.pid)) {
    throw new OperatorError(
      `The local server is not running (no live ${directory}/runtime.json). Start it with "npm start" in another terminal, or pass --stage sandbox|production.`,
    );
  }
  Object.assign(process.env, localEnvironment(runtime));
  return {
    stage: 'local',
    actor: localOperator(),
    apiBaseUrl: runtime.apiBaseUrl,
    activationBaseUrl: runtime.activationBaseUrl,
    mailer: outboxMailer(runtime.outboxDirectory),
  };
}
