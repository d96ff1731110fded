/**
 * Partition-key prefixes that IAM policies name (`dynamodb:LeadingKeys`). Side-effect free, so
 * the CDK stack can import them without loading the DynamoDB client.
 */
export const API_KEY_PARTITION = 'APIKEY#';
export const RATE_LIMIT_PARTITION = 'RATELIMIT#';
