import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The folders under a directory of the repository: a new module or feature is covered as it is made. */
const foldersIn = (dir) =>
  readdirSync(new URL(dir, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
/** The server's domain modules (one folder each under server/src/modules). */
const serverModules = foldersIn('./server/src/modules');
/** The web app's features (one folder each under web/src/features). */
const webFeatures = foldersIn('./web/src/features');

/** Import directions (docs/architecture.md › Rules the linter enforces): contracts ← server, contracts ← web; shared → features → app in web. */
const zones = [
  { target: './contracts', from: ['./server', './web', './e2e'], message: 'contracts depend only on zod' },
  { target: './server', from: ['./web', './e2e'], message: 'the server never imports the web app' },
  { target: './web', from: ['./server', './e2e'], message: 'the web app talks to the server over HTTP only' },
  {
    target: './e2e',
    from: ['./server/src', './web/src'],
    message: 'e2e drives the built app through HTTP and the browser',
  },
  {
    target: './server/src/modules/*/*.routes.ts',
    from: './server/src/modules/*/*.repository.ts',
    message: 'routes call services, never repositories',
  },
  // Modules meet through services or ports: nothing in a module but its repositories (which may share
  // SQL fragments) reaches into another module's repository — services, their helpers, tests.
  ...serverModules.map((m) => ({
    target: `./server/src/modules/${m}/!(*.repository).ts`,
    from: serverModules.filter((other) => other !== m).map((other) => `./server/src/modules/${other}/*.repository.ts`),
    message: "a module uses another module's service or port, never its repository",
  })),
  {
    target: ['./web/src/components', './web/src/lib', './web/src/config'],
    from: ['./web/src/features', './web/src/app'],
    message: 'shared code never imports features or the app',
  },
  { target: './web/src/features', from: './web/src/app', message: 'features never import the app layer' },
  ...webFeatures.map((f) => ({
    target: `./web/src/features/${f}`,
    from: './web/src/features',
    except: [`./${f}`],
    message: 'no feature imports another feature',
  })),
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'e2e/test-results/**',
      'e2e/playwright-report/**',
      '.reports/**',
      'docs/openapi.json',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { maxDepth: 4, ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // A page that needs a path, a text or a limit must not load zod and the schemas with it (~22 KB
    // gzipped, ~150 ms of a phone's main thread): those values come from the zod-free modules
    // (docs/architecture.md › Frontend, "Start-up"). `import type` is free; a page that validates
    // with a schema imports it on the line that needs it, with the rule turned off there and why.
    files: ['web/src/**/*.{ts,tsx}'],
    ignores: ['web/src/**/*.test.{ts,tsx}', 'web/src/testing/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@medshare/contracts',
              allowTypeImports: true,
              message: 'import values from @medshare/contracts/paths or /constants (the index loads every schema)',
            },
            {
              name: 'zod',
              allowTypeImports: true,
              message: 'zod loads with the contracts schemas a page needs, never from the app itself',
            },
          ],
          patterns: [
            {
              group: [
                '@medshare/contracts/*',
                '!@medshare/contracts/paths',
                '!@medshare/contracts/constants',
                '!@medshare/contracts/analysis-text',
                '!@medshare/contracts/password-policy',
                '!@medshare/contracts/permissions',
              ],
              allowTypeImports: true,
              message: 'this contracts module builds zod schemas: import values from /paths or /constants',
            },
          ],
        },
      ],
    },
  },
  {
    // `import { type X } from 'm'` still loads m once types are erased (verbatimModuleSyntax):
    // written `import type`, nothing is loaded for a type.
    files: ['web/src/**/*.{ts,tsx}', 'contracts/src/**/*.ts'],
    rules: { '@typescript-eslint/no-import-type-side-effects': 'error' },
  },
  {
    // The contracts' zod-free modules stay so: no zod, and no module of schemas.
    files: ['contracts/src/{paths,constants,analysis-text,password-policy,permissions}.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'zod',
                './*',
                '!./paths.ts',
                '!./constants.ts',
                '!./analysis-text.ts',
                '!./password-policy.ts',
                '!./permissions.ts',
              ],
              allowTypeImports: true,
              message: 'the web imports this module without zod: keep its values free of schemas',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['server/src/main.ts', 'server/src/cli/**', 'bench/**', 'scripts/**', 'e2e/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'server/test/**', 'e2e/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
