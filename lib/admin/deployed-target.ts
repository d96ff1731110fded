import type { OperatorTarget } from '../operations/target';
import { OperatorError } from '../operations/operator-error';

/** A deployed stage, found through its CloudFormation outputs. */
export async function deployedTarget(stage: 'sandbox' | 'production'): Promise<OperatorTarget> {
  throw new OperatorError(`Stage ${stage} is not deployed from this checkout yet.`);
}
