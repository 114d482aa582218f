// The soak project: real-time runs of minutes (watch's budget over two minutes, its memory over
// one), which would set the floor of every suite run. `npm run test:soak` runs them; CI runs them
// after the suite (.ci/run). Everything else is the main suite's settings.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, projects: [{ extends: true, test: { name: 'soak', include: ['test/soak/**/*.test.ts'], testTimeout: 300_000 } }] },
});
