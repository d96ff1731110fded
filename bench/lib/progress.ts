const started = performance.now();

/** Progress on stderr, with the time since the run started. */
export function progress(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** Runs `work`, reporting its duration; returns its result and the seconds it took. */
export async function timed<T>(
  label: string,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number }> {
  progress(`${label}…`);
  const start = performance.now();
  const value = await work();
  const seconds = (performance.now() - start) / 1000;
  progress(`${label}: done in ${seconds.toFixed(1)} s`);
  return { value, seconds };
}
