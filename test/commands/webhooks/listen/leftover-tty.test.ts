// webhooks listen --subscribe on a terminal (cli.md, webhooks): after a run was killed
// (SIGKILL, so it could not delete its subscription), the next run asks y/N about the leftover,
// naming it; y deletes it, and this run's own subscription is deleted on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { RFS_BIN } from '../../../helpers/child.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';
import { api, until } from '../../deliveries/incident-support.js';

let home: string;
let term: Terminal;
let sandbox: RunningSandbox;

async function subscriptions(): Promise<string[]> {
  return ((await api(sandbox, 'GET', '/webhooks?limit=50')) as { data: { id: string }[] }).data.map((s) => s.id);
}

/** A --subscribe run killed with SIGKILL: the id of the subscription it left. */
async function leftover(): Promise<{ id: string; pid: number }> {
  const child: ChildProcess = spawn(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--subscribe', '--port', '0'], {
    env: {
      PATH: process.env.PATH,
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await until('the subscription', () => /^secret of /m.test(err));
  const id = /^subscribed (wh_\w+)/m.exec(err)?.[1] ?? '';
  if (child.pid === undefined) throw new Error('no pid');
  process.kill(child.pid, 'SIGKILL');
  await exited;
  return { id, pid: child.pid };
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'the leftover question in a terminal'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-leftover-'));
    sandbox = await startSandbox({ port: 0, recordings: 0, rateLimit: 0 });
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl }));
  });
  afterAll(async () => {
    await term?.stop();
    await sandbox?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('asks about the leftover of a killed run, deletes it on y, and its own subscription on Ctrl-C', async () => {
    const left = await leftover();
    expect(await subscriptions()).toEqual([left.id]);
    await term.run('leftover', ['webhooks', 'listen', '--subscribe', '--port', '0'], { columns: 200, rows: 20 });
    const asked = await term.waitFor('leftover', (s) => s.includes('(y/N)'), 'the question');
    expect(asked).toContain(`subscription ${left.id} (`);
    expect(asked).toContain(`pid ${left.pid}, which is not running`);
    expect(asked).toContain(`? Delete the leftover subscription ${left.id}? (y/N)`);
    await term.keys('leftover', 'y', 'Enter');
    const running = await term.waitFor('leftover', (s) => s.includes('Ctrl-C to stop'), 'the receiver');
    expect(running).toContain(`deleted subscription ${left.id}`);
    const mine = /subscribed (wh_\w+)/.exec(running)?.[1] ?? '';
    expect(await subscriptions()).toEqual([mine]);
    // Ctrl-C reaches the pane's shell too, so its exit line never comes (the process tests
    // check the exit code); the screen says the subscription was deleted, and it is.
    await term.keys('leftover', 'C-c');
    const stopped = await term.waitFor('leftover', (s) => s.includes('stopped listening'), 'listen to stop');
    expect(stopped).toContain(`deleted subscription ${mine}\nstopped listening`);
    expect(await subscriptions()).toEqual([]);
  });
});
