// a refused webhook URL says what the service requires of one (api.md gives
// no field details), and the local check's words match what it accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { fakeTime } from '../../../helpers/clock.js';
import { bufferIO } from '../../../helpers/io.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  // Names resolve only through this table: no DNS is asked.
  sandbox = await startSandbox({
    port: 0,
    seed: 11,
    resolveHost: async (host) => (host === 'hooks.example.com' ? ['93.184.216.34'] : host === 'intranet.example.com' ? ['10.0.0.5'] : []),
  });
});
afterAll(() => sandbox.close());

async function create(url: string) {
  const t = bufferIO({ env: { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  const code = await runCli(['webhooks', 'create', '--url', url], t.io, { clock: fakeTime().clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

const RULE =
  'a webhook URL must be https:// to a public address whose name resolves (http:// only to a loopback host: localhost, 127.0.0.1, [::1])';

describe('webhooks create --url', () => {
  it.each([['https://10.0.0.5/hook'], ['https://intranet.example.com/hook'], ['https://nowhere.invalid/hook']])(
    'a URL the service refuses (%s): exit 2 with the advice of what a URL must be',
    async (url) => {
      const r = await create(url);
      expect(r.code).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^error: .*\(INVALID_INPUT, HTTP 400, request /);
      expect(lines[1]).toBe(`the service refused the URL: ${RULE}; private, link-local and unresolvable addresses are refused`);
    },
  );

  it('plain http to a loopback host is accepted locally and by the service', async () => {
    const r = await create('http://127.0.0.1:8787/hook');
    expect(r.code).toBe(0);
  });

  it('plain http elsewhere is refused locally, nothing sent, with the same rule', async () => {
    const before = (await sandbox.control.requests()).length;
    const r = await create('http://hooks.example.com/hook');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: invalid --url: plain http to hooks.example.com is refused');
    expect(r.stderr).toContain(RULE);
    expect((await sandbox.control.requests()).length).toBe(before);
  });

  it('a relative URL says it is not absolute, not that it must be https', async () => {
    const r = await create('/hook');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: invalid --url "/hook": not an absolute URL');
    expect(r.stderr).not.toContain('expected an absolute https:// URL');
  });

  it('a public https URL is created', async () => {
    expect((await create('https://hooks.example.com/hook')).code).toBe(0);
  });
});
