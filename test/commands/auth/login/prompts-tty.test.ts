// In a real terminal: an interactive `auth login` whose first key the service
// refuses (401) asks for the key again and keeps the URL typed before; and a login that would
// replace a saved key asks first; and a profile whose stored base-url breaks the URL rule is
// warned about in the rule's words and offered the default instead. A private tmux server
// (-L), killed after.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, problem } from '../../../helpers/fixtures.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { startScenarioServer, type ScenarioServer } from '../../../helpers/scenario-server.js';
import { startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';

const BAD = 'service_pk_refusedKEY0000';
const GOOD = 'service_pk_acceptedKEY1111';
const SIZE = { columns: 100, rows: 20 };

let home: string;
let term: Terminal | undefined;
let server: ScenarioServer;

const count = (text: string, what: string) => text.split(what).length - 1;
/** Line breaks and runs of spaces as one space: stderr's notices wrap at words on a terminal. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const t = (): Terminal => term as Terminal;

describe.skipIf(!TMUX.met)(needs(TMUX, 'interactive auth login in a terminal'), () => {
  beforeAll(async () => {
    server = await startScenarioServer();
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-login-'));
    term = await startTerminal(terminalEnv(home));
  });

  afterAll(async () => {
    await term?.stop();
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('asks for the key again after a 401, keeping the URL, then saves the accepted key', async () => {
    server.queue(problem(401, 'UNAUTHORIZED', 'Invalid key'), { body: page([], null, 1) });
    await t().run('login', ['auth', 'login'], SIZE);
    await t().waitForInput('login', (s) => s.includes('Service base URL'), 'the URL question');
    await t().keys('login', '-l', server.url);
    await t().keys('login', 'Enter');
    await t().waitForInput('login', (s) => s.includes('API key'), 'the key question');
    await t().keys('login', '-l', BAD);
    await t().keys('login', 'Enter');
    const again = await t().waitForInput(
      'login',
      (s) => count(s, '? API key') === 1 && flat(s).includes('try another key'),
      'the key asked again',
    );
    expect(flat(again)).toContain(
      'warning: the service refused the key service_pk_…0000 (401 UNAUTHORIZED); try another key (Ctrl-C to stop)',
    );
    await t().keys('login', '-l', GOOD);
    await t().keys('login', 'Enter');
    const done = await t().waitFor('login', (s) => /\[exit \d+\]/.test(s), 'rfs to exit');
    expect(done).toContain('[exit 0]');
    expect(count(done, 'Service base URL')).toBe(1);
    expect(done).not.toContain('SECRET');
    expect(done).not.toContain(GOOD);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${BAD}`, `Bearer ${GOOD}`]);
    const saved = JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as {
      profiles: Record<string, { apiKey: string; baseUrl: string }>;
    };
    expect(saved.profiles.default).toEqual({ baseUrl: server.url, apiKey: GOOD });
  });

  it('asks before replacing the key of a saved profile; n changes nothing', async () => {
    mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ defaultProfile: 'ro', profiles: { ro: { baseUrl: server.url, apiKey: GOOD } } }),
      {
        mode: 0o600,
      },
    );
    await t().run('replace', ['auth', 'login', '--profile', 'ro'], SIZE);
    const asked = await t().waitForInput('replace', (s) => s.includes('(y/N)'), 'the question');
    expect(asked).toBe('? Profile "ro" already has the key service_pk_…1111. Replace it? (y/N)');
    await t().keys('replace', 'n', 'Enter');
    const done = await t().waitFor('replace', (s) => /\[exit \d+\]/.test(s), 'rfs to exit');
    expect(done.split('\n').slice(0, 3)).toEqual([
      '✔ Profile "ro" already has the key service_pk_…1111. Replace it? No',
      'Nothing changed.',
      '[exit 0]',
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it('warns of a stored base-url that breaks the URL rule and offers the default instead; the typed one replaces it', async () => {
    mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
    // As `rfs config set` cannot leave it: edited by hand, plain http to a remote host.
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ defaultProfile: 'far', profiles: { far: { baseUrl: 'http://rfs.example.com', rate: '60' } } }),
      { mode: 0o600 },
    );
    server.queue({ body: page([], null, 1) });
    await t().run('far', ['auth', 'login', '--profile', 'far'], SIZE);
    const asked = await t().waitForInput('far', (s) => s.includes('Service base URL'), 'the URL question');
    const askedLines = asked.split('\n');
    // The warning wraps at words within the 100 columns; read as one line, it is the rule's words.
    expect(askedLines.slice(0, -1).every((l) => l.length <= SIZE.columns)).toBe(true);
    expect(flat(askedLines.slice(0, -1).join('\n'))).toBe(
      'warning: invalid base-url of profile "far": refusing plain http to rfs.example.com: an API key must not travel in clear text; fix it with `rfs config set base-url <value>` or `rfs config unset base-url`',
    );
    expect(askedLines.at(-1)).toBe('? Service base URL (http://127.0.0.1:4010)');
    // The offered default is replaced by what is typed.
    await t().keys('far', '-l', server.url);
    await t().keys('far', 'Enter');
    await t().waitForInput('far', (s) => s.includes('API key'), 'the key question');
    await t().keys('far', '-l', GOOD);
    await t().keys('far', 'Enter');
    const done = await t().waitFor('far', (s) => /\[exit \d+\]/.test(s), 'rfs to exit');
    expect(done).toContain('[exit 0]');
    expect(done).not.toContain(GOOD);
    const saved = JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    // The profile keeps its other settings; the bad URL is gone.
    expect(saved.profiles.far).toEqual({ baseUrl: server.url, apiKey: GOOD, rate: '60' });
  });
});
