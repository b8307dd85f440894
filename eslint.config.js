// Lint rules that catch real bugs in a trading system: no `any`, no floating or misused promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** One flat-config block forbidding imports of the named layers from files matching `files`. */
function layer(files, forbidden, message, typesFrom = []) {
  const group = (dirs) => [...new Set(dirs)].flatMap((d) => [`**/${d}/*`, `**/${d}/**`]);
  const patterns = [{ group: group(forbidden), message }];
  // `typesFrom`: folders whose types (never values) a layer may use, e.g. the engine maps the client's typed payloads.
  if (typesFrom.length > 0) patterns.push({ group: group(typesFrom), message: `${message} (types only)`, allowTypeImports: true });
  return [
    {
      files: [files],
      rules: {
        '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
      },
    },
  ];
}

/** The three houses on top of the floors (design.md §3): nothing below them imports them. */
const HOUSES = ['runtime', 'research', 'service', 'cli'];

/** Math.random is banned everywhere: one seeded random source (core/random). */
const noMathRandom = {
  selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
  message: 'Use the seeded random source (core/random).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Issue 18: the product code (src) gets strictTypeChecked. Tests, benches and example strategies keep
  // the lighter set above: they read untyped JSON from real sockets and fixtures, and the strict set
  // there is ~200 edits of test files other engineers are writing, with no product bug behind them.
  ...tseslint.configs.strictTypeChecked.map((c) => ({ ...c, files: ['src/**/*.ts'] })),
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      // A switch over a union names every member, or says what the rest do in an explicit `default`.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', noMathRandom],
    },
  },
  // strictTypeChecked, tuned where its findings are noise for this code base (each with its reason).
  {
    files: ['src/**/*.ts'],
    rules: {
      // Amounts print as bigint/number in messages (`${amountRaw} raw`); nullish, any and objects are still flagged.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowAny: false, allowBoolean: false, allowNullish: false, allowNever: false, allowRegExp: false },
      ],
      // `() => fn()` callbacks (listeners, timers, resolve) are idiomatic; a void in a `return` or an expression is still flagged.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Off: with noUncheckedIndexedAccess every bounded index read is `T | undefined`; `arr[i]!` after a bound check is the local, reviewed assertion.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Off: `async` on a sync body is how a Promise port turns a throw into a rejection; a forgotten await is caught by no-floating-promises.
      '@typescript-eslint/require-await': 'off',
      // Issue 18: only coded errors are thrown from src (docs/errors.md); an invariant breach uses a coded fatal error.
      'no-restricted-syntax': [
        'error',
        noMathRandom,
        {
          selector: 'NewExpression[callee.name=/^(Error|TypeError|RangeError)$/]',
          message: 'Throw a ChainpilotError with a code from core/error-codes.ts (and a row in docs/errors.md).',
        },
        {
          selector: 'CallExpression[callee.name=/^(Error|TypeError|RangeError)$/]',
          message: 'Throw a ChainpilotError with a code from core/error-codes.ts (and a row in docs/errors.md).',
        },
      ],
    },
  },
  // The dashboard's browser code shows its errors on the page; they never cross into Node.
  {
    files: ['src/service/dashboard/ui/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', noMathRandom] },
  },
  // Layering rules of design.md §3: imports point one way. The three houses on top: runtime (one
  // deployment), research (history) and service (the daemon) use the floors below; research and
  // service use runtime, never the reverse; research never imports service; nothing imports cli/.
  ...layer('src/core/**/*.ts', ['client', 'engine', 'strategies', 'executors', 'config', 'sim', ...HOUSES], 'core imports nothing of ours'),
  ...layer('src/client/**/*.ts', ['engine', 'strategies', 'executors', 'config', 'sim', ...HOUSES], 'client imports core only'),
  ...layer(
    'src/engine/**/*.ts',
    ['strategies', 'executors', 'config', 'sim', ...HOUSES],
    'the engine depends on ports, not adapters: never client, config, executors or sim',
    ['client'],
  ),
  // The strategy API itself (api.ts, sol.ts) and the built-in registry sit on the engine's strategy types.
  ...layer('src/strategies/*.ts', ['client', 'executors', 'config', 'sim', ...HOUSES], 'the strategy API is built on the engine and core only'),
  ...layer('src/executors/**/*.ts', ['strategies', 'config', 'sim', ...HOUSES], 'executors never import strategies or composition roots'),
  ...layer('src/config/**/*.ts', ['client', 'engine', 'executors', 'strategies', 'sim', ...HOUSES], 'config is data: it imports core only'),
  ...layer('src/sim/**/*.ts', ['engine', 'strategies', 'executors', 'config', ...HOUSES], 'the simulator is a service: it imports core and client types only'),
  // chainpilot/testing (issue 41) runs a strategy on the engine and the paper executor: nothing that
  // loads the Solana SDK, SQLite or the network (live executors, journals, queues, client, sim, houses).
  ...layer(
    'src/testing/**/*.ts',
    ['client', 'config', 'sim', 'strategies', 'live', 'journal', 'queue', 'signer', ...HOUSES],
    'the test kit is built on core, the engine and the paper executor only',
  ),
  ...layer('src/runtime/**/*.ts', ['research', 'service', 'cli'], 'runtime runs one deployment: research and service use it, never the reverse'),
  ...layer('src/research/**/*.ts', ['service', 'cli'], 'research (history) uses runtime and the floors below, never the daemon'),
  ...layer('src/service/**/*.ts', ['cli'], 'nothing imports the CLI'),
  ...layer(
    'src/research/replay/**/*.ts',
    ['strategies', 'executors', 'config', 'sim', 'cli', 'report', 'record', 'backtest', ...HOUSES],
    'a replay is a feed: it imports core, client and engine ports only',
  ),
  ...layer(
    'src/research/report/**/*.ts',
    ['client', 'strategies', 'executors', 'config', 'sim', 'cli', 'replay', 'record', 'backtest', ...HOUSES],
    'reports are computed from decisions: core and engine types only',
  ),
  // The daemon's parts are plugins on the service's port (service/service-port.ts): the dashboard
  // and notifications never import the daemon's implementation or each other.
  ...layer(
    'src/service/dashboard/**/*.ts',
    ['daemon', 'notify', 'cli'],
    'a daemon plugin depends on the service port (../service-port.js), not on the daemon or another plugin',
  ),
  ...layer(
    'src/service/notify/**/*.ts',
    ['daemon', 'dashboard', 'cli'],
    'a daemon plugin depends on the service port (../service-port.js), not on the daemon or another plugin',
  ),
  // A strategy (built-in or a user's) imports only the strategy API: its own files, ../api.js and
  // ../sol.js for built-ins, `chainpilot/strategy` (or the API's source path) for user strategies.
  {
    files: ['src/strategies/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./|\\.\\./(api|sol)\\.js$)', message: 'strategies import only the strategy API (../api.js)' }] },
      ],
    },
  },
  {
    files: ['config/strategies/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|chainpilot/strategy$|(\\.\\./)+src/strategies/api\\.js$)',
              message: "strategies import only the strategy API ('chainpilot/strategy')",
            },
          ],
        },
      ],
    },
  },
  // One clock per run, one seeded random source: no wall time, timers or Math.random in the engine
  // or in strategies (Math.random is banned everywhere above).
  {
    files: ['src/engine/**/*.ts', 'src/strategies/**/*.ts', 'config/strategies/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map((name) => ({
          name,
          message: 'Use the injected clock (clock.setTimeout in the engine, ctx.schedule in a strategy).',
        })),
        { name: 'Date', message: 'Use the injected clock (clock.now(), ctx.clock.now()); times are UnixMs.' },
        { name: 'performance', message: 'Use the injected clock.' },
      ],
      'no-restricted-properties': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'Date', 'performance'].map((property) => ({
          object: 'globalThis',
          property,
          message: 'Use the injected clock.',
        })),
      ],
    },
  },
  // Docs examples (test/docs/examples) are the docs' code blocks verbatim, compiled by the typecheck
  // and never run: a snippet shows a value or an import without using it.
  {
    files: ['test/docs/examples/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
