/**
 * A screen's auto-refresh: `step` runs `ms` after the previous run ended, so two never overlap and
 * a slow gateway is not asked faster than it answers. Returns the stop, as an `$effect` wants it.
 */
export function repeatAfter(ms: number, step: () => Promise<void>): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    await step();
    if (!stopped) timer = setTimeout(() => void run(), ms);
  };
  timer = setTimeout(() => void run(), ms);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
