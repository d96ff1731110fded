import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

async function stat(pid: number): Promise<{ ppid: number; cpuSeconds: number; command: string } | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const command = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // After "pid (comm) ": state ppid ... utime is field 14 of stat, i.e. index 11 here; stime 12.
    const ppid = Number(fields[1]);
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    return { ppid, cpuSeconds, command };
  } catch {
    return undefined;
  }
}

/** The process and all its descendants, with their command names (Linux /proc). */
export async function processTree(root: number): Promise<{ pid: number; command: string }[]> {
  const all: { pid: number; ppid: number; command: string }[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const info = await stat(pid);
    if (info) all.push({ pid, ppid: info.ppid, command: info.command });
  }
  const tree = all.filter((process) => process.pid === root);
  for (let index = 0; index < tree.length; index++) {
    const parent = tree[index];
    if (parent) tree.push(...all.filter((process) => process.ppid === parent.pid));
  }
  return tree.map(({ pid, command }) => ({ pid, command }));
}

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
export async function cpuSeconds(pid: number): Promise<number> {
  return (await stat(pid))?.cpuSeconds ?? 0;
}

/** CPU seconds all processes of the machine have used so far (busy time of /proc/stat, all cores). */
export async function machineBusySeconds(): Promise<number> {
  const text = await readFile('/proc/stat', 'utf8');
  const fields = (text.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const busy = fields
    .slice(0, 8)
    .reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0);
  return busy / TICKS_PER_SECOND;
}
