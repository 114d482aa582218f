import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/** Files that replace a module with vi.mock: they need a module registry of their own. */
const MOCKS_MODULES = ['test/core/atomic-write.test.ts', 'test/sandbox/persistence-durability.test.ts', 'test/cli/narrow-tree.test.ts'];

/** Real-time runs of minutes: a project of their own (vitest.soak.config.ts, `npm run test:soak`). */
const SOAK = 'test/soak/**';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: {
    RFS_VERSION: JSON.stringify(pkg.version),
    RFS_COMMIT: JSON.stringify('0123456789ab'),
    RFS_BUILD_DATE: JSON.stringify('2026-01-02T03:04:05Z'),
  },
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // After each test: every scenario server got exactly the requests queued for it.
    setupFiles: ['./test/support/verify-scenarios.ts'],
    // Once before the suite: the generated OpenAPI types, and dist/ when it is older than the source.
    globalSetup: ['./test/support/global-setup.ts'],
    // Tables show local time: pin it so that expected output is the same on every machine.
    env: { TZ: 'UTC' },
    // Transformed test and source files are kept in node_modules/.experimental-vitest-cache (cleared by
    // `vitest --clearCache` and by a fresh install): a run after the first one transforms only
    // what changed.
    experimental: { fsModuleCache: true },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Servers in tests listen on 127.0.0.1 port 0; two workers suit the two cores here.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // Each worker loads rfs, the sandbox and vitest's own modules once for all the files it
        // runs, not once per file: that loading was most of the run's time (import 50 s of 80 s
        // for the client, CLI and output tests). These files stub no globals and change no
        // process.env, and the servers each file starts it also stops, so nothing leaks.
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...MOCKS_MODULES, SOAK],
          isolate: false,
        },
      },
      // A vi.mock replaces a module for the file that asks; with a shared registry the module
      // under test may already be loaded with the real one.
      { extends: true, test: { name: 'isolated', include: MOCKS_MODULES, isolate: true } },
    ],
  },
});
