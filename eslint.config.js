// Lint: typescript-eslint's recommended rules plus the layer rules of architecture.md,
// enforced by machine so the house stays livable.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const LAYERS = 'see shared/design/architecture.md "Folders"';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'release/', 'test-output/', 'scratch/', '**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-empty-object-type': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['electron/engine/**', 'electron/server/**', 'electron/cli/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: `the engine, server and CLI never import electron (${LAYERS})` }] }],
    },
  },
  {
    files: ['native-models/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: `native-models never imports electron (${LAYERS})` }],
          patterns: [{ group: ['**/electron/**', '**/renderer/**'], message: `native-models knows nothing of the app (${LAYERS})` }],
        },
      ],
    },
  },
  {
    files: ['electron/contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: `the contract is zod only (${LAYERS})` }],
          patterns: [{ group: ['node:*', '**/engine/**', '**/main/**', '**/native-models/**', '**/renderer/**'], message: `the contract is zod only (${LAYERS})` }],
        },
      ],
    },
  },
  {
    files: ['renderer/**'],
    ignores: ['renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: `the renderer talks only through the contract (${LAYERS})` }],
          patterns: [
            { group: ['node:*'], message: `no Node in the renderer (${LAYERS})` },
            { group: ['**/engine/**', '**/main/**', '**/preload/**', '**/server/**', '**/cli/**', '**/native-models/**'], message: `the renderer imports only the contract (${LAYERS})` },
          ],
        },
      ],
    },
  },
);
