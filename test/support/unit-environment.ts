// Handlers read their configuration when first imported; unit tests mock AWS, so any names do.
process.env.STAGE = 'local';
process.env.TABLE_NAME = 'unit-test-table';
process.env.AWS_REGION = 'eu-west-1';
process.env.SESSION_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:unit-session';
process.env.SEALING_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:unit-sealing';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
