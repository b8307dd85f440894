/**
 * A daemon as a user grows it (issue 31): paper copies of config/paper-sim.yaml with distinct names,
 * run by a real `chainpilot daemon` process: 1, 10 and 100 deployments on one feed (one shared
 * embedded simulator), and 10 deployments on ten feeds (one simulator each, seeds 42..51). For each:
 * CPU of the process over the measured window (from /proc, after all are running and a warm-up),
 * as a ratio to one deployment's; RSS at the end (simulator workers included: they are threads of the
 * process); `/metrics` size and series; p99 over 50 sequential requests of `/api/deployments` and
 * `/metrics` (p50 and p99); the event-loop lag p99 the daemon reports over the window
 * (`nodejs_eventloop_lag_p99_seconds`; a scrape at the window's start restarts prom-client's
 * histogram; its 10 ms sampling interval is included, so an idle process reads about 11 ms); the
 * intents and fills of all deployments in the window (work done: a deployment that stopped trading
 * would measure well); the time from SIGTERM to exit. `CHAINPILOT_BENCH_SCALE_SECONDS` sets the
 * measured window (default 60), `CHAINPILOT_BENCH_SCALE_WARMUP_SECONDS` the wait after every
 * deployment runs (default a third of the window, at most 30 s; the issue measured 3 minutes after
 * ready). The machine's load average is printed with each row: on a shared machine CPU and latency
 * are noisy.
 *
 * The daemon runs in a session of its own (`setsid`), as a service does, apart from the bench that
 * asks it: Linux's autogroup scheduler (`/proc/sys/kernel/sched_autogroup_enabled`, on here) shares
 * the CPU between sessions first and between a session's threads second, so a client in the daemon's
 * session would take its time from the daemon's threads, and a daemon in the bench's session would
 * share with the bench.
 *
 * `CHAINPILOT_BENCH_SCALE_SPIN=N` loads the machine for the measured window only (the lag window and
 * the 50 requests): N processes that spin a CPU each, at the bench's own niceness (`nice -n 0`, so at
 * the daemon's), each in a session of its own, as other people's work is (N spinners in one session
 * would count as one under autogroup), started when the window begins and killed when the requests
 * are done. The row then
 * prints, besides the load average (a 1-minute average that lags the spinners), the run queue sampled
 * every second over the window (`procs_running` of /proc/stat, every thread of the machine that is
 * running or waiting for a core: the daemon's own included), its mean and maximum. On 2 cores,
 * `CHAINPILOT_BENCH_SCALE_SPIN=13` on an otherwise quiet machine gives a run queue of about 15.
 * `CHAINPILOT_BENCH_SCALE_LOAD=L` instead starts as many as bring the run queue to about L: L less
 * the run queue's mean over the 2 s before the window (other work on the machine, the daemon's own).
 *
 * `CHAINPILOT_BENCH_SCALE_BASE=DIR[,DIR2...]` measures before/after pairwise in one run: each case runs the
 * daemon of each other checkout DIR (built, e.g. a `git worktree` of main) and this one's, alternating,
 * `CHAINPILOT_BENCH_SCALE_ROUNDS` times (default 1); rows say which.
 *
 * `CHAINPILOT_BENCH_SOAK_MINUTES=N` runs the accelerated RSS soak instead: 100 deployments on one
 * feed with the simulator at `CHAINPILOT_BENCH_SOAK_SPEED` (default 360: a wall hour then holds the
 * market of six wall hours at the usual speed 60) for N wall minutes, sampling every minute the
 * process's RSS, the daemon's heap (`nodejs_heap_size_used_bytes`), the simulator worker's heap and
 * how far the run clock has got (the lockstep driver falls behind wall time when the daemon cannot
 * keep up, so the simulated hours reached are printed, not assumed). A row per sample; the verdict
 * compares the sample at the end of the first sixth of the run (warm-up) with the last. Each sample
 * also splits RSS by kind of mapping (`/proc/PID/smaps`, support/smaps.ts: glibc's main and thread
 * arenas, other anonymous memory, SQLite's `-shm` maps, files) and sizes the stores' files on disk
 * (`.db`, `-wal`). `CHAINPILOT_BENCH_SOAK_SAMPLE_SECONDS` sets the interval (default 60);
 * `CHAINPILOT_BENCH_SOAK_LOG=FILE` appends each sample as a JSON line. The daemon inherits the
 * environment, so `MALLOC_ARENA_MAX=2` or `NODE_OPTIONS` given to the bench reach it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile, type Bench, type BenchRow } from './harness.js';
import { formatSmaps, smapsBreakdown } from './support/smaps.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env['CHAINPILOT_BENCH_SCALE_SECONDS'] ?? 60);
/** Wait after every deployment runs, before the window (`CHAINPILOT_BENCH_SCALE_WARMUP_SECONDS`; default a third of the window, at most 30 s; the issue measured 3 minutes after ready). */
const WARMUP_SECONDS = Number(process.env['CHAINPILOT_BENCH_SCALE_WARMUP_SECONDS'] ?? Math.min(30, SECONDS / 3));
/** `interleaved` (default): a list, then a scrape, 50 times; `apart`: 50 lists, then 50 scrapes (`CHAINPILOT_BENCH_SCALE_REQUESTS`). */
const REQUESTS = process.env['CHAINPILOT_BENCH_SCALE_REQUESTS'] === 'apart' ? 'apart' : 'interleaved';
/** Extra node flags for the daemon (`CHAINPILOT_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` profiles it). */
const NODE_ARGS = (process.env['CHAINPILOT_BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
/** Spinning processes for the measured window (`CHAINPILOT_BENCH_SCALE_SPIN`; default 0). */
const SPIN = Number(process.env['CHAINPILOT_BENCH_SCALE_SPIN'] ?? 0);
/** Or a run queue to bring the machine to (`CHAINPILOT_BENCH_SCALE_LOAD`), with spinners for the difference. */
const LOAD_TARGET = Number(process.env['CHAINPILOT_BENCH_SCALE_LOAD'] ?? 0);
const TOKEN = 'daemon-scale-bench-token-0123456789abcdef';
const CASES = [
  { deployments: 1, feeds: 1 },
  { deployments: 10, feeds: 1 },
  { deployments: 100, feeds: 1 },
  { deployments: 10, feeds: 10 },
] as const;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const cpuTicks = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(f[11]) + Number(f[12]); // utime + stime, clock ticks (100 per second)
};
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/** Sum of every sample of a counter in a Prometheus text page (all label sets). */
const sumSeries = (text: string, name: string): number => {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
};
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** Threads of the machine running or waiting for a core, now (`procs_running` of /proc/stat). */
const runQueue = (): number => Number(/^procs_running (\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? NaN);

/**
 * Loads the machine: `n` processes spinning a CPU each at the bench's niceness (`nice -n 0`), and the
 * run queue sampled every second until `stop()`, which kills them (by their own pids) and says what the
 * run queue was.
 */
/** How many spinners the window gets: `CHAINPILOT_BENCH_SCALE_SPIN`, or the difference to `CHAINPILOT_BENCH_SCALE_LOAD`. */
async function spinners(): Promise<number> {
  if (LOAD_TARGET <= 0) return SPIN;
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    seen.push(runQueue());
    await sleep(200);
  }
  return Math.max(0, Math.round(LOAD_TARGET - seen.reduce((a, b) => a + b, 0) / seen.length));
}

function spin(n: number): { stop: () => string } {
  const spinners = Array.from({ length: n }, () => spawn('nice', ['-n', '0', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore', detached: true }));
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(runQueue()), 1000);
  return {
    stop: () => {
      clearInterval(timer);
      for (const s of spinners) s.kill('SIGKILL');
      if (SPIN === 0 && LOAD_TARGET === 0) return '';
      const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
      return `; ${n} spinning, run queue mean ${mean.toFixed(1)} max ${Math.max(...samples)} over ${samples.length} s`;
    },
  };
}

function writeConfigs(dir: string, deployments: number, feeds: number, speed = 60): void {
  const base = readFileSync(join(root, 'config/paper-sim.yaml'), 'utf8')
    .replace(/\n\s*decisionLog: .*/, '')
    .replace(/speed: 60\b/, `speed: ${speed}`);
  for (let i = 0; i < deployments; i++) {
    const seed = feeds === 1 ? 42 : 42 + (i % feeds);
    writeFileSync(join(dir, `scale-${i}.yaml`), base.replace('name: paper-sim', `name: scale-${i}`).replace('seed: 42', `seed: ${seed}`));
  }
}

async function startDaemon(dir: string, cwd = root): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [...NODE_ARGS, 'bin/chainpilot.js', 'daemon', join(dir, 'conf'), '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'), '--log-level', 'warn'],
    {
      cwd,
      env: { ...process.env, CHAINPILOT_API_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true, // a session of its own (see the header)
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /control API on (http:\/\/[^;\s]+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`daemon exited ${String(code)} before it listened: ${out}`)));
  });
  return { child, url };
}

const get = async (url: string): Promise<{ ms: number; text: string }> => {
  const t0 = performance.now();
  const once = (): Promise<Response> => fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  // a kept-alive socket the daemon closed while paused (a heap snapshot) fails once with ECONNRESET: asked again, timed from the first try
  const res = await once().catch((e: unknown) => {
    console.log(`daemon-scale: GET ${url} failed (${String(e)}); asking again on a new connection`);
    return once();
  });
  const text = await res.text();
  return { ms: performance.now() - t0, text };
};

async function waitRunning(url: string, deployments: number): Promise<void> {
  for (;;) {
    const list = JSON.parse((await get(`${url}/api/deployments`)).text) as { deployments?: { state: string }[] } | { state: string }[];
    const rows = Array.isArray(list) ? list : (list.deployments ?? []);
    if (rows.length === deployments && rows.every((d) => d.state === 'running')) return;
    await sleep(500);
  }
}

/** Sizes (MB) of the stores' files on disk: databases, WAL files (sum and largest), and files that could not be read. */
function storeFiles(dir: string): { db: number; wal: number; walMax: number; unreadable: number } {
  let db = 0;
  let wal = 0;
  let walMax = 0;
  let unreadable = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return { db, wal, walMax, unreadable: 1 }; // no store written yet: counted, and printed with the sample
  }
  for (const n of names) {
    let size = 0;
    try {
      size = statSync(join(dir, n)).size / 2 ** 20;
    } catch {
      unreadable++; // removed between the listing and the stat: counted, and printed with the sample
      continue;
    }
    if (n.endsWith('.db')) db += size;
    else if (n.endsWith('.db-wal')) {
      wal += size;
      walMax = Math.max(walMax, size);
    }
  }
  return { db, wal, walMax, unreadable };
}

/** The accelerated soak (see the header): one row per sample. */
async function soak(minutes: number, speed: number): Promise<BenchRow[]> {
  const every = Number(process.env['CHAINPILOT_BENCH_SOAK_SAMPLE_SECONDS'] ?? 60);
  const logFile = process.env['CHAINPILOT_BENCH_SOAK_LOG'];
  const deployments = Number(process.env['CHAINPILOT_BENCH_SOAK_DEPLOYMENTS'] ?? 100);
  const feeds = Number(process.env['CHAINPILOT_BENCH_SOAK_FEEDS'] ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-soak-'));
  mkdirSync(join(dir, 'conf'));
  writeConfigs(join(dir, 'conf'), deployments, feeds, speed);
  const { child, url } = await startDaemon(dir);
  const pid = child.pid ?? 0;
  const rows: BenchRow[] = [];
  const rssAt: { minute: number; rss: number }[] = [];
  try {
    await waitRunning(url, deployments);
    const detail = async (): Promise<{ at: number; started: number }> => {
      const d = JSON.parse((await get(`${url}/api/deployments/scale-0`)).text) as {
        feed?: { lastFrameAt: number | null };
        summary?: { startedAt: number | null };
      };
      return { at: d.feed?.lastFrameAt ?? NaN, started: d.summary?.startedAt ?? NaN };
    };
    const first = await detail();
    const t0 = performance.now();
    const samples = Math.floor((minutes * 60) / every);
    for (let i = 1; i <= samples; i++) {
      await sleep(t0 + i * every * 1000 - performance.now());
      const m = (i * every) / 60;
      const text = (await get(`${url}/metrics`)).text;
      const heap = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN) / 2 ** 20;
      const heapTotal = Number(/^nodejs_heap_size_total_bytes (\S+)/m.exec(text)?.[1] ?? NaN) / 2 ** 20;
      // every simulator's heap in use, summed (one series per simulator)
      const simHeap = sumSeries(text, 'chainpilot_simulator_heap_used_bytes') / 2 ** 20;
      const d = await detail();
      const simH = (d.at - first.started) / 3_600_000;
      const rss = rssMb(pid);
      rssAt.push({ minute: m, rss });
      const maps = smapsBreakdown(pid);
      const files = storeFiles(join(dir, 'data', 'stores'));
      rows.push({
        name: `soak minute ${m.toFixed(1)}`,
        value: rss,
        unit: 'MB RSS',
        note:
          `heap ${heap.toFixed(0)} of ${heapTotal.toFixed(0)} MB, simulator heap ${simHeap.toFixed(0)} MB; ${formatSmaps(maps)}; ` +
          `stores on disk: .db ${files.db.toFixed(1)} MB, -wal ${files.wal.toFixed(1)} MB (largest ${files.walMax.toFixed(2)}${files.unreadable > 0 ? `, ${files.unreadable} unreadable` : ''}); ` +
          `run clock ${simH.toFixed(1)} simulated h after start (= ${(simH / 60).toFixed(2)} wall h at speed 60); load ${load()}`,
      });
      console.log(`daemon-scale soak: minute ${m.toFixed(1)}: RSS ${rss.toFixed(0)} MB, ${rows.at(-1)?.note ?? ''}`);
      if (logFile) appendFileSync(logFile, `${JSON.stringify({ minute: m, rss, heap, heapTotal, simHeap, simH, maps, files, load: load() })}\n`);
    }
    const warm = rows[Math.max(0, Math.floor(rows.length / 6) - 1)];
    const last = rows.at(-1);
    if (warm && last) {
      rows.push({
        name: `soak: last vs ${warm.name}`,
        value: last.value / warm.value,
        unit: 'x RSS',
        note: `${warm.value.toFixed(0)} MB -> ${last.value.toFixed(0)} MB (flat means within 1.2x); speed ${speed}`,
      });
    }
    // issue 42's gauge: RSS from minute 10 on against the sample at minute 10 (flat is within ±15 %)
    const from10 = rssAt.filter((r) => r.minute >= 10);
    const at10 = from10[0];
    if (at10 && from10.length > 1) {
      const least = Math.min(...from10.map((r) => r.rss));
      const most = Math.max(...from10.map((r) => r.rss));
      rows.push({
        name: `soak: RSS from minute ${at10.minute.toFixed(1)} to ${(rssAt.at(-1)?.minute ?? 0).toFixed(1)}, most vs minute ${at10.minute.toFixed(1)}`,
        value: most / at10.rss,
        unit: 'x RSS',
        note: `least ${least.toFixed(0)} MB (${(least / at10.rss).toFixed(2)}x), most ${most.toFixed(0)} MB, at minute ${at10.minute.toFixed(1)} ${at10.rss.toFixed(0)} MB (flat: 0.85x..1.15x); ${deployments} deployment(s) on ${feeds} simulator(s), speed ${speed}`,
      });
    }
    return rows;
  } finally {
    child.kill('SIGTERM');
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(deployments: number, feeds: number, cwd = root): Promise<{ cpu: number; note: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-scale-'));
  mkdirSync(join(dir, 'conf'));
  writeConfigs(join(dir, 'conf'), deployments, feeds);
  const { child, url } = await startDaemon(dir, cwd);
  const pid = child.pid ?? 0;
  let spinning: { stop: () => string } | undefined;
  try {
    await waitRunning(url, deployments);
    await sleep(WARMUP_SECONDS * 1000);
    // the lag histogram restarts at each scrape: this one starts it with the measured window
    spinning = spin(await spinners());
    const before = (await get(`${url}/metrics`)).text;
    const c0 = cpuTicks(pid);
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const cpu = (cpuTicks(pid) - c0) / 100 / ((performance.now() - t0) / 1000);
    const rss = rssMb(pid);
    const after = (await get(`${url}/metrics`)).text;
    const lag = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(after)?.[1] ?? NaN) * 1000;
    // the work done in the window: a deployment that stopped trading would cost nothing and measure well
    const intents = sumSeries(after, 'chainpilot_intents_total') - sumSeries(before, 'chainpilot_intents_total');
    const fills = sumSeries(after, 'chainpilot_fills_total') - sumSeries(before, 'chainpilot_fills_total');
    // alerts mark the scrape cache stale (a discrete change): how many came in the window
    const alerts = sumSeries(after, 'chainpilot_alerts_total') - sumSeries(before, 'chainpilot_alerts_total');
    const api: number[] = [];
    const metrics: number[] = [];
    let text = '';
    const list = async (): Promise<void> => void api.push((await get(`${url}/api/deployments`)).ms);
    const scrape = async (): Promise<void> => {
      const m = await get(`${url}/metrics`);
      metrics.push(m.ms);
      text = m.text;
    };
    if (REQUESTS === 'apart') {
      // the list alone, then the scrapes alone (a scrape every few ms keeps a background render going)
      for (let i = 0; i < 50; i++) await list();
      for (let i = 0; i < 50; i++) await scrape();
    } else
      for (let i = 0; i < 50; i++) {
        await list();
        await scrape();
      }
    const loaded = spinning.stop();
    const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
    const t1 = performance.now();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const exitS = (performance.now() - t1) / 1000;
    return {
      cpu,
      note: `RSS ${rss.toFixed(0)} MB; /metrics ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB, ${series} series; p50/p99 /api/deployments ${percentile(api, 50).toFixed(1)}/${percentile(api, 99).toFixed(1)} ms, /metrics ${percentile(metrics, 50).toFixed(1)}/${percentile(metrics, 99).toFixed(1)} ms (${REQUESTS}); loop lag p99 ${lag.toFixed(1)} ms; ${intents} intents, ${fills} fills, ${alerts} alerts in the window; SIGTERM exit ${exitS.toFixed(2)} s; load ${load()}${loaded}`,
    };
  } finally {
    spinning?.stop(); // a window that failed leaves no spinner behind
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Bench = {
  name: 'daemon-scale',
  async run() {
    const soakMinutes = Number(process.env['CHAINPILOT_BENCH_SOAK_MINUTES'] ?? 0);
    if (soakMinutes > 0) return soak(soakMinutes, Number(process.env['CHAINPILOT_BENCH_SOAK_SPEED'] ?? 360));
    const rows: BenchRow[] = [];
    let one = NaN;
    // `CHAINPILOT_BENCH_SCALE_CASES=1x1,100x1` runs only those (deployments x feeds); the first is the baseline
    const only = process.env['CHAINPILOT_BENCH_SCALE_CASES']?.split(',');
    const base = process.env['CHAINPILOT_BENCH_SCALE_BASE'];
    const rounds = base === undefined ? 1 : Number(process.env['CHAINPILOT_BENCH_SCALE_ROUNDS'] ?? 1);
    const builds: readonly { readonly label: string; readonly cwd: string }[] = [
      ...(base ?? '')
        .split(',')
        .filter((d) => d !== '')
        .map((d) => ({ label: ` [${d}]`, cwd: d })),
      { label: base === undefined ? '' : ' [this]', cwd: root },
    ];
    for (let round = 0; round < rounds; round++)
      for (const c of CASES.filter((k) => !only || only.includes(`${k.deployments}x${k.feeds}`)))
        for (const b of builds) {
          const r = await measure(c.deployments, c.feeds, b.cwd);
          if (c.deployments === 1) one = r.cpu;
          rows.push({
            name: `${c.deployments} deployment(s), ${c.feeds} feed(s)${c.deployments === 1 ? ' (baseline)' : ''}${b.label}`,
            value: r.cpu * 100,
            unit: '% CPU',
            ...(c.deployments === 1 ? {} : { ratio: r.cpu / one }),
            note: `${r.note}; ${SECONDS} s window`,
          });
          console.log(`daemon-scale: ${rows.at(-1)?.name}: ${rows.at(-1)?.note ?? ''}`);
        }
    return rows;
  },
};
export default bench;
