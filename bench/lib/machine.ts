import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { promisify } from 'node:util';

export interface MachineDescription {
  readonly os: string;
  readonly kernel: string;
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly java: string;
  readonly date: string;
  /** 1, 5 and 15 minute load averages when the run started (2 means both cores busy). */
  readonly loadAverage: readonly number[];
}

async function osName(): Promise<string> {
  try {
    const text = await readFile('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(text)?.[1] ?? type();
  } catch {
    return type();
  }
}

async function javaVersion(): Promise<string> {
  try {
    const { stderr } = await promisify(execFile)('java', ['-version']);
    return stderr.split('\n')[0]?.trim() ?? 'unknown';
  } catch {
    return 'not found';
  }
}

export async function describeMachine(): Promise<MachineDescription> {
  return {
    os: await osName(),
    kernel: `${type()} ${release()}`,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    java: await javaVersion(),
    date: new Date().toISOString(),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
