import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LAMBDA_RUNTIME } from '../../lib/constructs/secure-defaults';

const run = promisify(execFile);

/** `24` of `nodejs24.x`: the Node.js major the functions run on in Lambda. */
const lambdaMajor = Number(/^nodejs(\d+)\.x$/.exec(LAMBDA_RUNTIME.name)?.[1]);
const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };

describe('Node.js: the tests run on the major Lambda runs', () => {
  it("asks for Lambda's Node.js major in package.json engines, and .ci/run installs that major", () => {
    expect(lambdaMajor).toBeGreaterThanOrEqual(24);
    expect(packageJson.engines.node).toBe(`>=${lambdaMajor}`);
    expect(readFileSync('.ci/run', 'utf8')).toContain(`REQUIRED_NODE_MAJOR=${lambdaMajor}`);
  });

  it('runs this suite on that major or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(lambdaMajor);
  });

  it('gets no Node.js support warning from the AWS SDK (nothing silences it: the variable is removed)', async () => {
    const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _silenced, ...environment } = process.env;
    const { stderr } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; new DynamoDBClient({ region: 'eu-west-1' }); process.emitWarning('probe: warnings reach stderr');",
      ],
      { env: environment },
    );

    expect(stderr).toContain('probe: warnings reach stderr');
    expect(stderr).not.toMatch(/NodeVersionSupportWarning|end-of-life|no longer supported/i);
  });
});
