import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs. API keys appear in them only as their 12-character prefix. */
export const logger = new Logger({ serviceName: 'partner-api' });
