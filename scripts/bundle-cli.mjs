// Bundles the short-lived `chainpilot` commands (start-up, issue 42; docs/performance.md,
// "Start-up"): after tsc, each command module of dist/cli/program.js's COMMAND_REGISTRARS named in
// BUNDLED below becomes one CommonJS file dist/cli/bundle/<module>.cjs holding that command, the
// chainpilot modules it imports and its pure-JS packages (zod, yaml, commander...), and
// dist/cli/bundle/commands.json maps each command name to its file and its code cache's.
// bin/chainpilot.js compiles a bundle through vm.Script with V8's code cache (a .cache file it
// writes next to the bundle on first run), so a start reads and compiles two files instead of
// resolving, reading and compiling some 300 ES modules one by one.
//
// Native packages and those that find their own files at run time stay external (required from
// node_modules), as does everything a worker thread runs: a worker's module is found next to its
// importer's original dist/ file (import.meta.url below), so workers run dist/ unbundled.
// The library exports (dist/index.js etc.) are untouched. Without esbuild (a devDependency) the
// bundles are skipped and bin/chainpilot.js runs dist/cli/entry.js as before.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const outdir = join(dist, 'cli/bundle');

/**
 * Required from node_modules at run time: native code, files located at run time (pino's
 * transports, tsx's loader), and bullmq, whose sandboxed processors import() a file by path.
 */
export const EXTERNAL = [
  'bullmq',
  'better-sqlite3',
  'litesvm',
  'bufferutil',
  'utf-8-validate',
  'msgpackr-extract',
  'bigint-buffer',
  'esbuild',
  'tsx',
  'tsx/*',
  'pino',
  'pino-pretty',
  'thread-stream',
  'playwright-core',
];

/**
 * The command modules that get a bundle: the commands that end on their own, whose start is a
 * real part of their run (validate, the control verbs, init, a backtest or a report).
 */
export const BUNDLED = ['validate', 'control', 'init', 'wallet', 'backtest', 'report', 'calibrate', 'sweep'];
/**
 * Those that run until stopped (a daemon, a paper or live session, a recording, a queue worker):
 * their start is a fraction of a second of a run of minutes, their bundles would be 3–8 MB each
 * (fastify, web3, grammy...) in the package, so they run dist/cli/entry.js as before.
 */
export const UNBUNDLED = ['daemon', 'paper', 'run', 'worker', 'sim', 'record', 'download'];

/**
 * Command modules and their registering export, from COMMAND_REGISTRARS' functions
 * (`async () => (await import('./commands/validate.js')).registerValidate`), grouped: module → names.
 */
export async function commandModules() {
  const { COMMAND_REGISTRARS } = await import(pathToFileURL(join(dist, 'cli/program.js')).href);
  const modules = new Map();
  for (const [name, registrar] of Object.entries(COMMAND_REGISTRARS)) {
    const m = /import\('\.\/commands\/([\w-]+)\.js'\)\)\.(\w+)/.exec(String(registrar));
    if (!m) throw new Error(`bundle-cli: cannot read the module of command ${name} from ${String(registrar)}`);
    const [, module, exported] = m;
    if (UNBUNDLED.includes(module)) continue;
    if (!BUNDLED.includes(module)) throw new Error(`bundle-cli: command module ${module} is in neither BUNDLED nor UNBUNDLED`);
    const entry = modules.get(module) ?? { exported, names: [] };
    entry.names.push(name);
    modules.set(module, entry);
  }
  return modules;
}

/**
 * A dist/ module's `import(x)` of something outside the bundle (a strategy file, tsx, a node:
 * module) → `__chainpilotImport(x)`, a function bin/chainpilot.js passes in: node 20 loses a
 * vm.Script's dynamic-import callback when the script comes from the code cache ("A dynamic import
 * callback was not specified"). Relative literal imports are bundled (esbuild needs them as they
 * are); module-worker.js's are the text of a worker's module, run by the worker itself.
 */
function dynamicImports(path, text) {
  if (path.endsWith('/runtime/module-worker.js')) return text;
  return text.replace(/\bimport\((?!'\.\.?\/)/g, '__chainpilotImport(');
}

/**
 * `import.meta` in a dist/ module → the same values for that module's original file, computed from
 * the bundle's location (`__dirname`), so `new URL('../../package.json', import.meta.url)` and a
 * worker's sibling module resolve as they do unbundled, wherever the package is installed.
 */
const distModulePlugin = {
  name: 'dist-module-context',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta') && !text.includes('import(')) return undefined;
      const contents = dynamicImports(args.path, text)
        .replaceAll('import.meta.url', `__chainpilotUrlOf(${JSON.stringify(relative(outdir, args.path))})`)
        .replaceAll('import.meta.resolve', '__chainpilotResolve');
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** Builds every command's bundle and commands.json; returns the bundles' sizes in bytes. */
export async function bundleCli(esbuild) {
  const modules = await commandModules();
  const commands = {};
  const sizes = {};
  rmSync(outdir, { recursive: true, force: true }); // older bundles and their caches
  mkdirSync(outdir, { recursive: true });
  for (const [module, { exported, names }] of modules) {
    const r = await esbuild.build({
      absWorkingDir: root,
      stdin: {
        contents: [
          `import { runCliProcess } from './cli-process.js';`,
          `import { runRegistered } from './run-cli.js';`,
          `import { ${exported} } from './commands/${module}.js';`,
          `export const main = (argv) => runCliProcess(() => runRegistered(${exported}, argv));`,
        ].join('\n'),
        resolveDir: join(dist, 'cli'),
        sourcefile: `dist/cli/bundle/${module}-entry.js`,
      },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      outfile: join(outdir, `${module}.cjs`),
      plugins: [distModulePlugin],
      // the bundle's own require and __dirname: a module's local `require` (createRequire) may shadow the name
      banner: {
        js: [
          'const __chainpilotUrlOf = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, rel)).href;',
          'const __chainpilotResolve = (specifier) => require("node:url").pathToFileURL(require.resolve(specifier)).href;',
        ].join('\n'),
      },
      metafile: true,
      logLevel: 'warning',
    });
    for (const [file, out] of Object.entries(r.metafile.outputs)) sizes[file] = out.bytes;
    // V8 checks a code cache against its source's length only: the cache's name carries the
    // bundle's content hash, so a rebuilt bundle never runs with an older build's cache.
    const hash = createHash('sha256')
      .update(readFileSync(join(outdir, `${module}.cjs`)))
      .digest('hex')
      .slice(0, 16);
    for (const name of names) commands[name] = { bundle: `${module}.cjs`, cache: `${module}.${hash}.cache` };
  }
  writeFileSync(join(outdir, 'commands.json'), `${JSON.stringify(commands, null, 2)}\n`);
  return sizes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (e) {
    console.log(`bundle-cli: esbuild unavailable (${e.code ?? e.message}): no bundles, bin/chainpilot.js runs dist/cli/entry.js`);
  }
  if (esbuild) {
    const sizes = await bundleCli(esbuild);
    console.log(`bundle-cli: ${Object.keys(sizes).length} command bundles in dist/cli/bundle, ${Object.values(sizes).reduce((a, b) => a + b, 0)} bytes`);
  }
}
