/**
 * The service's keys, each from its own Secrets Manager secret so that a function reads only the
 * ones it needs: `session` signs host sessions and CSRF tokens; `sealing` seals partners'
 * activation signing secrets (pages that verify links, and the operator CLI that mints them);
 * `cursor` signs the page cursors of `GET /properties` (that function alone). The route table
 * names which function gets which (`access.secrets`); `lambdas/common/service-secrets.ts` loads them.
 */
export const SERVICE_SECRET_NAMES = ['session', 'sealing', 'cursor'] as const;
export type ServiceSecretName = (typeof SERVICE_SECRET_NAMES)[number];

/** The environment variable that holds a secret's ARN (never its value). */
export const secretArnVariable = (name: ServiceSecretName) => `${name.toUpperCase()}_SECRET_ARN`;
