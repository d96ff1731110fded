import { spawn } from 'node:child_process';

/** Environment for every child process: this one's, plus `extra`. */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

export interface ChildOutput {
  readonly stdout: string;
  readonly code: number | null;
}

/** Runs a process to completion; stderr passes through (progress), stdout is collected. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; stderr?: 'inherit' | 'ignore' },
): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, code }));
  });
}

/**
 * Runs a bench worker (TypeScript, through tsx) in its own process, so that its module state
 * (a mocked DynamoDB client, environment read at import) stays out of this one. The worker
 * prints one JSON document on stdout.
 */
export async function runWorker<T>(script: string, env: Record<string, string>): Promise<T> {
  const { stdout, code } = await runProcess(process.execPath, ['--import', 'tsx', script], {
    env: childEnvironment(env),
  });
  if (code !== 0) throw new Error(`${script} exited with code ${code}`);
  const lastLine = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine) as T;
}
