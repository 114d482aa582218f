// /healthz of `sync --metrics`: a 503's body names the last pass's failure,
// which holds the server's problem title. A title with ESC, BEL, a CR or line breaks must not
// reach whoever reads the body (a terminal running curl, a monitor splitting on lines): the body
// is one line, with every such character shown escaped.
import { afterEach, describe, expect, it } from 'vitest';
import { Health, type MonitorServer, startMonitorServer } from '../../../src/sync/health.js';
import { fakeTime } from '../../helpers/clock.js';

let server: MonitorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('/healthz of sync --metrics', () => {
  it('answers 503 with the failure on one line, control characters escaped', async () => {
    const time = fakeTime();
    const health = new Health(time.clock, 60_000);
    health.passStarted(1);
    time.advance(2000);
    health.passEnded(1, {
      filed: 0,
      failed: 0,
      waiting: 0,
      parked: 0,
      interrupted: false,
      durationMs: 2000,
      error: '500 INTERNAL: Down\x1b]0;owned\x07\x1b[2J\r\nsecond line\u009b31m',
    });
    time.advance(3000);
    server = await startMonitorServer({ host: '127.0.0.1', port: 0 }, health, async () => ({ contentType: 'text/plain', body: '' }));
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(
      'the last pass failed 3 s ago: 500 INTERNAL: Down\\x1b]0;owned\\x07\\x1b[2J\\r\\nsecond line\\u009b31m\n',
    );
  });
});
