import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { SynthesisOutcome } from '../infra/app-synthesis';
import { synthesisPaths } from '../infra/app-synthesis';

const SYNTHESIZE = fileURLToPath(new URL('./synthesize-infra-app.ts', import.meta.url));
/** How much of the synthesis output a failure shows (bundling is chatty; the error comes last). */
const OUTPUT_TAIL = 8_000;

/**
 * The infra project's global setup: synthesizes the app once per run (esbuild bundling of every
 * function and cdk-nag are most of the time) into a throwaway cloud assembly, in a child
 * process, so the test files that do not need it run meanwhile; the ones that do wait for it
 * when they import test/infra/synthesized-app.ts. A failed synthesis, such as an
 * unacknowledged cdk-nag finding, fails those files with its output, as `cdk synth` fails.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'partner-api-cdk-'));
  const paths = synthesisPaths(directory);
  let synthesis = startSynthesis(project.config.root, paths);
  project.provide('infraCloudAssembly', directory);
  // Watch mode: a rerun of infra files synthesizes the (possibly edited) app again.
  project.onTestsRerun(async (specifications) => {
    if (!specifications.some((specification) => specification.project.name === project.name)) return;
    await synthesis.stop();
    synthesis = startSynthesis(project.config.root, paths);
  });
  return async () => {
    await synthesis.stop();
    await rm(directory, { recursive: true, force: true });
  };
}

function startSynthesis(root: string, paths: ReturnType<typeof synthesisPaths>) {
  rmSync(paths.outcome, { force: true });
  rmSync(paths.assembly, { recursive: true, force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', SYNTHESIZE, paths.assembly], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const ended = new Promise<void>((resolve) => {
    let recorded = false;
    const record = async (outcome: SynthesisOutcome) => {
      if (recorded) return;
      recorded = true;
      // Written whole, then renamed: a reader never sees half a file.
      await writeFile(`${paths.outcome}.tmp`, JSON.stringify(outcome));
      await rename(`${paths.outcome}.tmp`, paths.outcome);
      resolve();
    };
    child.on('error', (error) => void record({ ok: false, error: String(error) }));
    child.on(
      'close',
      (code, signal) =>
        void record(
          code === 0
            ? { ok: true }
            : { ok: false, error: `exited with ${signal ?? `code ${code}`}:\n${output}` },
        ),
    );
  });
  return {
    /** Ends the synthesis (it is still running only when no test file needed it). */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await ended;
    },
  };
}
