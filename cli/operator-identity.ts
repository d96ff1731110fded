import { userInfo } from 'node:os';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/**
 * Who runs an operator command, as the audit trail names them: on a deployed stage the ARN of
 * the AWS identity whose credentials sign the calls (GetCallerIdentity needs no permission), on
 * the local stage the operating-system user.
 */
export async function deployedOperator(client: STSClient = new STSClient({})): Promise<string> {
  const { Arn } = await client.send(new GetCallerIdentityCommand({}));
  if (!Arn) throw new Error('STS GetCallerIdentity returned no ARN');
  return Arn;
}

export function localOperator(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown-local-user';
  }
}
