import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../emulator/aws-endpoint';

/**
 * The headers of a POST to the local AWS endpoint signed as the SDK signs one (SigV4, the body's
 * hash signed too), for a body the SDK would never send: a test's own JSON or form, at a time of
 * its choosing. `target` is the JSON protocols' `X-Amz-Target`; without it the body is a form (IAM).
 */
export async function signedAwsHeaders(options: {
  readonly endpoint: URL;
  readonly secretAccessKey: string;
  readonly service: string;
  readonly target?: string;
  readonly body: string;
  readonly signingDate?: Date;
}): Promise<Record<string, string>> {
  const { endpoint, body, target } = options;
  const signer = new SignatureV4({
    credentials: { accessKeyId: 'operator', secretAccessKey: options.secretAccessKey },
    region: 'local',
    service: options.service,
    sha256: NodeSha256,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: endpoint.hostname,
      port: Number(endpoint.port),
      path: '/',
      query: {},
      headers: {
        host: endpoint.host,
        'content-type': target ? 'application/x-amz-json-1.1' : 'application/x-www-form-urlencoded',
        ...(target ? { 'x-amz-target': target } : {}),
        'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
      },
      body,
    },
    { signingDate: options.signingDate ?? new Date() },
  );
  return signed.headers;
}
