// The remembered subscriptions (cli.md, deliveries, "Deleted subscriptions"): per base
// URL and profile, in the state folder, written atomically and 0600, bounded, merged with what
// another run wrote, and holding nothing secret (never the key, nor anything made from it).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { MAX_SUBSCRIPTIONS, RememberedSubscriptions } from '../../../src/config/remembered-subscriptions.js';
import { stateFolder } from '../../../src/config/state-folder.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { bufferIO } from '../../helpers/io.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-remembered-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = (): NodeJS.ProcessEnv => ({ XDG_STATE_HOME: join(dir, 'state') });
const at = (iso: string) => () => Date.parse(iso);
const workspace = { baseUrl: 'https://api.example.com', profile: 'default' };

describe('remembered subscriptions', () => {
  it('live in $XDG_STATE_HOME/rfs, else ~/.local/state/rfs, and nowhere without either', () => {
    expect(stateFolder({ XDG_STATE_HOME: '/x/state', HOME: '/home/a' })).toBe('/x/state/rfs');
    expect(stateFolder({ XDG_STATE_HOME: 'relative', HOME: '/home/a' })).toBe('/home/a/.local/state/rfs');
    expect(stateFolder({})).toBeUndefined();
  });

  it('are kept per base URL and profile, in a 0600 file, and a deleted one is marked by a complete listing', async () => {
    const first = RememberedSubscriptions.open(env(), workspace, at('2026-11-27T10:00:00Z'));
    first.saw([
      { id: 'wh_a', url: 'https://a.example.com/hook' },
      { id: 'wh_b', url: 'https://b.example.com/hook' },
    ]);
    expect(await first.save()).toBe(true);
    const file = join(dir, 'state', 'rfs', 'subscriptions.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const later = RememberedSubscriptions.open(env(), workspace, at('2026-11-27T11:00:00Z'));
    later.sawAllLive([{ id: 'wh_a', url: 'https://a.example.com/hook' }]);
    expect(later.get('wh_b')).toMatchObject({ url: 'https://b.example.com/hook', deletedSeenAt: '2026-11-27T11:00:00.000Z' });
    expect(await later.save()).toBe(true);

    expect(RememberedSubscriptions.open(env(), { ...workspace, profile: 'other' }, Date.now).all()).toEqual([]);
    expect(RememberedSubscriptions.open(env(), { ...workspace, baseUrl: 'http://127.0.0.1:9' }, Date.now).all()).toEqual([]);
    expect(
      RememberedSubscriptions.open(env(), workspace, Date.now)
        .all()
        .map((s) => s.id)
        .sort(),
    ).toEqual(['wh_a', 'wh_b']);
    // No temporary file is left behind.
    expect(readdirSync(join(dir, 'state', 'rfs'))).toEqual(['subscriptions.json']);
  });

  it('keep at most 100 per profile, the ones seen longest ago going first', async () => {
    for (let i = 0; i < MAX_SUBSCRIPTIONS + 20; i++) {
      const one = RememberedSubscriptions.open(env(), workspace, () => Date.parse('2026-11-27T10:00:00Z') + i * 1000);
      one.saw([{ id: `wh_${String(i).padStart(3, '0')}`, url: null }]);
      await one.save();
    }
    const kept = RememberedSubscriptions.open(env(), workspace, Date.now).all();
    expect(kept).toHaveLength(MAX_SUBSCRIPTIONS);
    expect(kept.map((s) => s.id)).not.toContain('wh_000');
    expect(kept.map((s) => s.id)).toContain(`wh_${MAX_SUBSCRIPTIONS + 19}`);
  });

  it('merge what another run wrote meanwhile, and forget a deleted one for good', async () => {
    const one = RememberedSubscriptions.open(env(), workspace, Date.now);
    const two = RememberedSubscriptions.open(env(), workspace, Date.now);
    one.saw([{ id: 'wh_one', url: null }]);
    two.saw([{ id: 'wh_two', url: null }]);
    await one.save();
    await two.save();
    const both = RememberedSubscriptions.open(env(), workspace, Date.now);
    expect(
      both
        .all()
        .map((s) => s.id)
        .sort(),
    ).toEqual(['wh_one', 'wh_two']);
    both.forget(['wh_one']);
    await both.save();
    expect(
      RememberedSubscriptions.open(env(), workspace, Date.now)
        .all()
        .map((s) => s.id),
    ).toEqual(['wh_two']);
  });

  it('a damaged or oversized file is read as empty, set aside by the next save, and written anew', async () => {
    const folder = join(dir, 'state', 'rfs');
    const first = RememberedSubscriptions.open(env(), workspace, Date.now);
    first.saw([{ id: 'wh_x', url: null }]);
    await first.save();
    writeFileSync(join(folder, 'subscriptions.json'), '{"version":1,"workspaces":');
    expect(RememberedSubscriptions.open(env(), workspace, Date.now).all()).toEqual([]);
    writeFileSync(join(folder, 'subscriptions.json'), `{"version":1,"workspaces":{},"pad":"${'x'.repeat(300 * 1024)}"}`);
    const m = RememberedSubscriptions.open(env(), workspace, Date.now);
    expect(m.all()).toEqual([]);
    m.saw([{ id: 'wh_y', url: null }]);
    expect(await m.save()).toBe(true);
    expect(statSync(join(folder, 'subscriptions.json')).size).toBeLessThan(1024);
    expect(readdirSync(folder).filter((name) => name.includes('.unreadable-'))).toHaveLength(1);
  });
});

describe('what rfs writes there', () => {
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, recordings: 0, rateLimit: 0 });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('a linked file of planted ids is not listed, and that is said once on stderr without -v', async () => {
    const folder = join(dir, 'state', 'rfs');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const planted = join(dir, 'planted.json');
    const key = `${sandbox.baseUrl} default`;
    const subscriptions = Array.from({ length: 5 }, (_, i) => ({ id: `wh_planted${i}`, url: null, seenAt: '2026-11-28T00:00:00Z' }));
    const text = JSON.stringify({ version: 1, workspaces: { [key]: { usedAt: '2026-11-28T00:00:00Z', subscriptions } } });
    writeFileSync(planted, text, { mode: 0o600 });
    symlinkSync(planted, join(folder, 'subscriptions.json'));
    const t = bufferIO({
      env: { ...env(), RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl },
    });
    expect(await runCli(['deliveries', 'summary', '-o', 'json'], t.io)).toBe(0);
    const said = t
      .stderr()
      .split('\n')
      .filter((line) => line.includes('is a symbolic link'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/remembered subscriptions are not used/);
    expect(t.stdout()).not.toContain('wh_planted');
    expect(readFileSync(planted, 'utf8')).toBe(text);
  });

  it('webhooks create remembers the id and URL, and nothing of the key or the secret', async () => {
    const t = bufferIO({
      env: { ...env(), RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl },
    });
    const code = await runCli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '-o', 'json'], t.io);
    expect(code).toBe(0);
    const created = JSON.parse(t.stdout()) as { id: string; secret: string };
    const text = readFileSync(join(dir, 'state', 'rfs', 'subscriptions.json'), 'utf8');
    const stored = JSON.parse(text) as { workspaces: Record<string, { subscriptions: { id: string; url: string }[] }> };
    expect(Object.keys(stored.workspaces)).toEqual([`${sandbox.baseUrl} default`]);
    expect(Object.values(stored.workspaces)[0]?.subscriptions).toEqual([
      expect.objectContaining({ id: created.id, url: 'http://127.0.0.1:9/hook' }),
    ]);
    expect(text).not.toContain(sandbox.apiKeys.admin);
    expect(text).not.toContain(sandbox.apiKeys.admin.slice(-12));
    expect(text).not.toContain(created.secret);
  });
});
