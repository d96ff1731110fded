import { inject } from 'vitest';
import { useServiceEnvironment } from '../../lambdas/common/config';

// Test code talks to the suite's DynamoDB Local through the same data modules as the handlers,
useServiceEnvironment(inject('localEnvironment'));
// and the operator CLI, run in-process, finds the suite's local server as `npm run admin` would.
process.env.PARTNER_API_LOCAL_DIR = inject('localDirectory');
// Handlers' logs stay quiet; POWERTOOLS_LOG_LEVEL=ERROR (or DEBUG) shows them when a test needs looking into.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
// The outbound enrichment, run in-process by the model test, writes no metric lines (as npm start's).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
