/** CPU time (user + system, all threads of the process) spent since `start`, in ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Wall time since `startMs` (a `performance.now()` reading), in ms. */
export function wallMsSince(startMs: number): number {
  return performance.now() - startMs;
}
