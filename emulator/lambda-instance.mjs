/**
 * One Lambda execution environment of the local runtime (`lambda-runtime.ts`), run in its own
 * worker thread: its own module graph, environment variables and memory, one invocation at a
 * time. Plain JavaScript because it is the runtime, not a function: it loads the function's
 * bundle the way Lambda's Node.js runtime loads an ES module handler, reports the init time,
 * then answers invocations with the handler's result serialized as Lambda returns it (JSON).
 */

import { pathToFileURL } from 'node:url';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('lambda-instance.mjs runs as a worker thread of the local Lambda runtime');

/** @type {{ module: string; functionName: string; instanceId: string; memoryMb: number }} */
const { module, functionName, instanceId, memoryMb } = workerData;

function describe(error) {
  return {
    errorType: error instanceof Error ? error.name : typeof error,
    errorMessage: error instanceof Error ? error.message : String(error),
  };
}

function lambdaContext(requestId, deadlineMs) {
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: instanceId,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const started = performance.now();
let handler;
try {
  ({ handler } = await import(pathToFileURL(module).href));
  if (typeof handler !== 'function') throw new TypeError(`${module} does not export a handler function`);
} catch (error) {
  port.postMessage({ type: 'init-error', ...describe(error) });
  handler = undefined;
}

if (handler) {
  port.postMessage({ type: 'ready', initMs: performance.now() - started });
  port.on('message', async ({ id, event, requestId, deadlineMs }) => {
    if (event === undefined) {
      // A diagnostic from the runtime between invocations: the heap this instance holds after a
      // full GC. Workers cannot take --expose-gc, so the flag is set here, on first use.
      setFlagsFromString('--expose-gc');
      runInNewContext('gc')();
      port.postMessage({ type: 'heap', id, usedHeapBytes: getHeapStatistics().used_heap_size });
      return;
    }
    try {
      const result = await handler(JSON.parse(event), lambdaContext(requestId, deadlineMs));
      port.postMessage({ type: 'result', id, payload: JSON.stringify(result ?? null) });
    } catch (error) {
      port.postMessage({ type: 'error', id, ...describe(error) });
    }
  });
}
