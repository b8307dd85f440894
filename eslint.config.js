// Lint rules that catch real bugs in a trading system: no `any`, no floating or misused promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** One flat-config block forbidding imports of the named layers from files matching `files`. */
function layer(files, forbidden, message) {
  return [
    {
      files: [files],
      rules: {
        'no-restricted-imports': ['error', { patterns: [{ group: forbidden.flatMap((d) => [`**/${d}/*`, `**/${d}/**`]), message }] }],
      },
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Use the seeded random source (core/random).' },
      ],
    },
  },
  // Layering rules of design.md §3: imports point one way; nothing imports runtime/ or cli/.
  ...layer('src/core/**/*.ts', ['client', 'engine', 'strategies', 'executors', 'config', 'sim', 'runtime', 'cli'], 'core imports nothing of ours'),
  ...layer('src/client/**/*.ts', ['engine', 'strategies', 'executors', 'config', 'sim', 'runtime', 'cli'], 'client imports core only'),
  ...layer('src/engine/**/*.ts', ['strategies', 'executors', 'config', 'sim', 'runtime', 'cli'], 'the engine depends on ports, not adapters'),
  ...layer('src/strategies/**/*.ts', ['client', 'executors', 'config', 'sim', 'runtime', 'cli'], 'strategies see only the strategy API'),
  ...layer('src/executors/**/*.ts', ['strategies', 'config', 'sim', 'runtime', 'cli'], 'executors never import strategies or composition roots'),
  ...layer('src/config/**/*.ts', ['executors', 'strategies', 'sim', 'runtime', 'cli'], 'config is data: it imports core only'),
  ...layer('src/sim/**/*.ts', ['engine', 'strategies', 'executors', 'config', 'runtime', 'cli'], 'the simulator is a service: it imports core and client types only'),
  ...layer('src/replay/**/*.ts', ['strategies', 'executors', 'config', 'sim', 'runtime', 'cli', 'report'], 'a replay is a feed: it imports core, client and engine ports only'),
  ...layer('src/report/**/*.ts', ['client', 'strategies', 'executors', 'config', 'sim', 'runtime', 'cli', 'replay'], 'reports are computed from decisions: core and engine types only'),
  {
    files: ['src/engine/**/*.ts', 'src/strategies/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the injected clock.' },
      ],
    },
  },
);
