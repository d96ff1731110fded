import { inject } from 'vitest';

// Test code talks to the suite's DynamoDB Local through the same data modules as the handlers.
Object.assign(process.env, inject('localEnvironment'));
