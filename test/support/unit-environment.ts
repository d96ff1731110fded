import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateServiceSecrets } from '../../lambdas/shared/service-secrets';

// Handlers read their configuration when first imported; unit tests mock DynamoDB, so any names do.
const secretsFile = join(tmpdir(), `partner-api-unit-secrets-${process.pid}.json`);
writeFileSync(secretsFile, JSON.stringify(generateServiceSecrets()));
process.env.STAGE = 'local';
process.env.TABLE_NAME = 'unit-test-table';
process.env.AWS_REGION = 'eu-west-1';
process.env.SERVICE_SECRETS_FILE = secretsFile;
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
