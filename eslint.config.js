// Lint for svc (issue 13, point 6): the recommended rules of ESLint and typescript-eslint, and the import directions
// of ../shared/STYLE.md held by ESLint's own no-restricted-imports, one block per layer, so a change that crosses a
// layer fails `npm test` and CI with the rule's message instead of waiting for a reviewer to notice.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** A restricted-import pattern with the reason shown when it matches. */
const layer = (group, message) => ({ group, message });

const PERSISTENCE = layer(['**/persistence/**'], 'HTTP adapters and the OIDC plugin call services, never persistence (STYLE.md: direction of imports).');
const APP = layer(['**/app/**'], 'Only the process entry, cli/ and tests import the composition root (app/).');
const ADAPTERS = layer(['**/http/**', '**/oidc/**', '**/cli/**'], 'Domain logic knows nothing of its adapters (HTTP, OIDC plugin, CLI).');
const IO_MODULES = layer(['node:fs', 'node:fs/*', 'node:http', 'node:https', 'node:child_process', 'node:dns', 'pg', 'better-sqlite3', 'kysely'], 'Pure layers do no I/O.');
// node:net's address parsers are pure; its sockets are not.
const NET_SOCKETS = { name: 'node:net', allowImportNames: ['isIP', 'isIPv4', 'isIPv6'], message: 'Pure layers may parse addresses with node:net but open no sockets.' };
const FASTIFY = layer(['fastify', 'fastify/*', '@fastify/*'], 'Services never import Fastify: they are called by adapters.');
const PROCESS_ENV = { object: 'process', property: 'env', message: 'Only config loading and the CLI read the environment; pass values in.' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names are errors, except a leading underscore marks one kept on purpose (a handler's unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Kysely's migrations and a few test helpers take untyped databases on purpose; each use is local.
      '@typescript-eslint/no-explicit-any': 'off',
      // Input checks match control characters on purpose, to refuse them.
      'no-control-regex': 'off',
    },
  },
  {
    // Scripts and config run on Node as plain ES modules.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/app/**', 'src/cli/**', 'src/main.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [APP] }] },
  },
  {
    files: ['src/http/**/*.ts', 'src/oidc/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [APP, PERSISTENCE] }] },
  },
  {
    files: ['src/services/**/*.ts', 'src/persistence/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [APP, ADAPTERS, FASTIFY] }] },
  },
  {
    files: ['src/policy/**/*.ts', 'src/domain/**/*.ts', 'src/router-config/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [NET_SOCKETS], patterns: [APP, ADAPTERS, FASTIFY, IO_MODULES, layer(['**/services/**', '**/persistence/**'], 'Pure layers call no services or stores.')] }],
      'no-restricted-properties': ['error', PROCESS_ENV],
    },
  },
  {
    // A router is deployed without a store, and the channel is shared with SDKs (STYLE.md "One package, several programs").
    files: ['src/router/**/*.ts', 'src/channel/**/*.ts', 'src/control-protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [APP, layer(['**/services/**', '**/persistence/**', '**/http/**', '**/oidc/**', '**/cli/**'], 'The router and the channel run without the controller: no services, stores, controller HTTP, OIDC or CLI.')] },
      ],
    },
  },
  {
    // The SDK runs inside someone else's application, next to no controller or router (STYLE.md "One package, several programs").
    files: ['src/sdk/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [APP, layer(['**/services/**', '**/persistence/**', '**/http/**', '**/oidc/**', '**/cli/**', '**/router/**', '**/control-plane/**'], 'The SDK builds on channel, pki and shared only: no controller, router or CLI modules.')] },
      ],
    },
  },
  {
    // The client tunneler is a program on the SDK: it runs where neither a controller nor a router does.
    files: ['src/tunneler/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [APP, layer(['**/services/**', '**/persistence/**', '**/http/**', '**/oidc/**', '**/cli/**', '**/router/**', '**/control-plane/**'], 'The tunneler builds on the SDK and shared only: no controller, router or CLI modules.')] },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [NET_SOCKETS], patterns: [layer(['../**'], 'shared/ holds leaf helpers: it imports nothing else of svc.'), IO_MODULES] }],
      'no-restricted-properties': ['error', PROCESS_ENV],
    },
  },
);
