// Set-up for every test file: after each test, every scenario server it used must have been
// asked exactly what was queued (see test/helpers/scenario-server.ts).
import { afterEach } from 'vitest';
import { verifyScenarioServers } from '../helpers/scenario-server.js';

afterEach(() => {
  verifyScenarioServers();
});
