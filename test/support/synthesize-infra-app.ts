import { synthesizeApp } from '../infra/app-synthesis';

/**
 * `node --import tsx test/support/synthesize-infra-app.ts <outdir>`: the infra project's one
 * synthesis, in a process of its own (see infra-synthesis-setup.ts).
 */
const [outdir] = process.argv.slice(2);
if (!outdir) throw new Error('Usage: synthesize-infra-app.ts <outdir>');
synthesizeApp(outdir);
