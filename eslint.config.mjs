// Lint: ESLint's recommended rules and typescript-eslint's, over the library, the CLI, the
// Action, the tests and the build scripts. Formatting is Prettier's job (`npm run format`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'build/**',
      'coverage/**',
      'node_modules/**',
      '.bench/**',
      'src/journal/wasm/scan-wasm.generated.ts',
      'src/report/client/page-script.generated.ts',
      'src/journal/worker/source.generated.ts',
      'src/journal/wasm/assembly/**',
      'examples/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        WebAssembly: 'readonly',
        SharedArrayBuffer: 'readonly',
        Atomics: 'readonly',
        document: 'readonly',
        window: 'readonly',
        crypto: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-control-regex': 'off', // escaping control characters is this project's daily work
    },
  },
  {
    // A house a newcomer reads: no source file over 500 lines, no function over 120 (every line counted, nested
    // functions included). A hand-written parser may be the exception, said in a comment where it is disabled.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },

  {
    files: ['test/**', 'scripts/**', 'bench/**', 'tools/**', '*.config.*', '*.mjs', '*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
