import { DEFAULT_AUDIT_RETENTION_DAYS } from './audit-retention';

/**
 * Runtime configuration, read once at cold start. A missing value stops the function with a
 * message naming it, instead of failing later on an undefined table name.
 */
function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') {
    throw new Error(`Environment variable ${name} is not set; the stack (or npm start) must provide it.`);
  }
  return value;
}

function optionalEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === '' ? undefined : value;
}

export const STAGES = ['local', 'sandbox', 'production'] as const;
export type Stage = (typeof STAGES)[number];

function stageEnv(): Stage {
  const stage = requiredEnv('STAGE');
  if (!(STAGES as readonly string[]).includes(stage)) {
    throw new Error(`STAGE must be one of ${STAGES.join(', ')}; got "${stage}".`);
  }
  return stage as Stage;
}

function positiveIntegerEnv(name: string, fallback: number): number {
  const value = optionalEnv(name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new Error(`${name} must be a positive integer; got "${value}".`);
  }
  return number;
}

export const config = {
  stage: stageEnv(),
  tableName: requiredEnv('TABLE_NAME'),
  /** The local DynamoDB address in local mode; unset in AWS. */
  dynamoDbEndpoint: optionalEnv('DYNAMODB_ENDPOINT'),
  /** Locally, who signs the calls (the function's name, or `operator`)… */
  localAccessKeyId: optionalEnv('AWS_ACCESS_KEY_ID') ?? 'local',
  /** …and with what: the local AWS endpoint checks every signature (DynamoDB Local accepts any). */
  localSecretAccessKey: optionalEnv('AWS_SECRET_ACCESS_KEY') ?? 'local',
  /** Retention of audit events, in days (the table's TTL removes them). */
  auditRetentionDays: positiveIntegerEnv('AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS),
} as const;
