// Handlers read their configuration when first imported; unit tests mock DynamoDB, so any names do.
process.env.STAGE = 'local';
process.env.TABLE_NAME = 'unit-test-table';
process.env.AWS_REGION = 'eu-west-1';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
