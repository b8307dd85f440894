// Preloaded into a measured child process (`node --import`): at exit, writes the process's CPU time
// (every thread: main, workers, GC and compiler helpers) and peak RSS as JSON to $BENCH_CPU_REPORT.
import { writeFileSync } from 'node:fs';

const out = process.env.BENCH_CPU_REPORT;
if (out) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6, maxRssKb: u.maxRSS }));
  });
}
