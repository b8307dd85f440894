// Preloaded into a measured child process (`node --import`), with $BENCH_THREAD_CPU_DIR set: every
// JavaScript thread (the main thread and each worker thread, which inherit `--import`) writes its
// own CPU seconds (user + system, from /proc/thread-self/stat: Linux) to DIR/PID-THREADID.json
// every 200 ms and at exit, so a bench can split a process's CPU time by lane. What the process
// spent beyond the sum is V8's and libuv's helper threads (GC, compilers, the thread pool).
import { readFileSync, writeFileSync } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.BENCH_THREAD_CPU_DIR;
if (dir) {
  const out = `${dir}/${process.pid}-${threadId}.json`;
  const take = () => {
    try {
      // fields after the command name: state is 3rd, utime and stime the 14th and 15th of the whole line
      const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
      writeFileSync(out, JSON.stringify({ threadId, main: isMainThread, cpuS: (Number(f[11]) + Number(f[12])) / 100 }));
    } catch {
      // not Linux: no split (the bench prints none)
    }
  };
  setInterval(take, 200).unref();
  process.on('exit', take);
}
