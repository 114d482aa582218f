// The remembered subscriptions' file (config/remembered-subscriptions.ts) against what a server
// or another user can do to it: what rfs writes always fits what it reads (long URLs, many
// profiles), a file it cannot read is set aside and said, never rewritten; a file that is not
// the user's own (a link, another's, one others may write, in a folder others may write) is
// neither read nor written, and said; a save that waits on another's lock waits long enough, and
// says what it could not save when it gives up.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_FILE_BYTES,
  MAX_SUBSCRIPTIONS,
  MAX_URL_CHARS,
  MAX_WORKSPACES,
  RememberedSubscriptions,
} from '../../src/config/remembered-subscriptions.js';
import { lockHost } from '../../src/core/lock.js';
import { fakeTime } from '../helpers/clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-remembered-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ XDG_STATE_HOME: join(dir, 'state') });
const folder = (): string => join(dir, 'state', 'rfs');
const file = (): string => join(folder(), 'subscriptions.json');
const workspace = { baseUrl: 'http://127.0.0.1:4010', profile: 'default' };
const ids = (m: RememberedSubscriptions): string[] =>
  m
    .all()
    .map((s) => s.id)
    .sort();

describe('what is written fits what is read', () => {
  it('20 profiles of 100 subscriptions with 2,000-character URLs: the file stays readable, the profile in use whole', async () => {
    const longUrl = (i: number) => `https://hooks.example.com/${String(i).padStart(4, '0')}/${'p'.repeat(2000)}`;
    for (let w = 0; w < MAX_WORKSPACES; w++) {
      const m = RememberedSubscriptions.open(
        env(),
        { ...workspace, profile: `p${w}` },
        () => Date.parse('2026-11-27T10:00:00Z') + w * 1000,
      );
      m.saw(Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => ({ id: `wh_${w}_${i}`, url: longUrl(i) })));
      expect(await m.save()).toBe(true);
      expect(m.takeProblems()).toEqual([]);
    }
    expect(statSync(file()).size).toBeLessThanOrEqual(MAX_FILE_BYTES);
    const last = RememberedSubscriptions.open(env(), { ...workspace, profile: `p${MAX_WORKSPACES - 1}` }, Date.now);
    expect(last.all()).toHaveLength(MAX_SUBSCRIPTIONS);
    // The URL kept cut, its start readable.
    expect(last.url('wh_19_0')).toMatch(/^https:\/\/hooks\.example\.com\/0000\/p+…$/);
    expect(Array.from(last.url('wh_19_0') ?? '')).toHaveLength(MAX_URL_CHARS);
  });

  it("one server's 50 subscriptions with 8 KB URLs, seen in one run, are all remembered", async () => {
    const m = RememberedSubscriptions.open(env(), workspace, Date.now);
    m.saw(Array.from({ length: 50 }, (_, i) => ({ id: `wh_${String(i).padStart(2, '0')}`, url: `https://x.example/${'u'.repeat(8192)}` })));
    expect(await m.save()).toBe(true);
    expect(statSync(file()).size).toBeLessThanOrEqual(MAX_FILE_BYTES);
    expect(RememberedSubscriptions.open(env(), workspace, Date.now).all()).toHaveLength(50);
  });

  it('an id no service gives (over 200 characters) is not remembered', async () => {
    const m = RememberedSubscriptions.open(env(), workspace, Date.now);
    m.saw([{ id: `wh_${'x'.repeat(300)}`, url: null }]);
    m.sawIds([`wh_${'y'.repeat(300)}`, 'wh_ok']);
    await m.save();
    expect(ids(RememberedSubscriptions.open(env(), workspace, Date.now))).toEqual(['wh_ok']);
  });
});

describe('a file rfs cannot read', () => {
  it.each([
    ['over the size rfs reads', () => `{"version":1,"workspaces":{},"pad":"${'x'.repeat(300 * 1024)}"}`, /over the 262144/],
    ['not JSON', () => '{"version":1,"workspaces":', /not JSON/],
    ['not the shape rfs writes', () => '{"version":2}', /not the file rfs writes/],
  ])('%s is set aside whole by the next save, and that is said', async (_what, text, why) => {
    const first = RememberedSubscriptions.open(env(), workspace, Date.now);
    first.saw([{ id: 'wh_x', url: null }]);
    await first.save();
    const content = text();
    writeFileSync(file(), content, { mode: 0o600 });
    const m = RememberedSubscriptions.open(env(), workspace, () => Date.parse('2026-11-28T23:50:00Z'));
    expect(m.all()).toEqual([]);
    m.saw([{ id: 'wh_y', url: null }]);
    expect(await m.save()).toBe(true);
    const problems = m.takeProblems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(why);
    expect(problems[0]).toContain('moved aside to');
    const aside = readdirSync(folder()).filter((name) => name.startsWith('subscriptions.json.unreadable-'));
    expect(aside).toEqual(['subscriptions.json.unreadable-20261128T235000Z']);
    expect(readFileSync(join(folder(), aside[0] ?? ''), 'utf8')).toBe(content);
    expect(ids(RememberedSubscriptions.open(env(), workspace, Date.now))).toEqual(['wh_y']);
  });

  it('a run that only reads it changes nothing: the file stays until a save sets it aside', () => {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    writeFileSync(file(), 'not json', { mode: 0o600 });
    RememberedSubscriptions.open(env(), workspace, Date.now);
    expect(readFileSync(file(), 'utf8')).toBe('not json');
  });
});

describe("a file that is not the user's own", () => {
  const planted = JSON.stringify({
    version: 1,
    workspaces: {
      [`${workspace.baseUrl} ${workspace.profile}`]: {
        usedAt: '2026-11-28T00:00:00Z',
        subscriptions: Array.from({ length: 100 }, (_, i) => ({ id: `wh_planted${i}`, url: null, seenAt: '2026-11-28T00:00:00Z' })),
      },
    },
  });

  const refusedEverywhere = async (why: RegExp, target: string = file()): Promise<void> => {
    const before = readFileSync(target, 'utf8');
    const m = RememberedSubscriptions.open(env(), workspace, Date.now);
    expect(m.all()).toEqual([]);
    const problems = m.takeProblems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(why);
    m.saw([{ id: 'wh_mine', url: null }]);
    expect(await m.save()).toBe(false);
    // Neither written through nor replaced.
    expect(readFileSync(target, 'utf8')).toBe(before);
  };

  it('a symbolic link to a list of planted ids is not read, nor written through', async () => {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    const elsewhere = join(dir, 'planted.json');
    writeFileSync(elsewhere, planted, { mode: 0o600 });
    symlinkSync(elsewhere, file());
    await refusedEverywhere(/subscriptions\.json is a symbolic link/, elsewhere);
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
  });

  it('a file group or others may write is not read', async () => {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    writeFileSync(file(), planted);
    chmodSync(file(), 0o666);
    await refusedEverywhere(/is writable by group or others/);
  });

  it('a file in a folder others may write is not read', async () => {
    mkdirSync(folder(), { recursive: true });
    chmodSync(folder(), 0o777);
    writeFileSync(file(), planted, { mode: 0o600 });
    await refusedEverywhere(/its folder .*rfs is writable by group or others/);
  });

  it.runIf(process.geteuid?.() === 0)("another user's file, or one in another user's folder, is not read", async () => {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    writeFileSync(file(), planted, { mode: 0o600 });
    chownSync(file(), 4242, 4242);
    await refusedEverywhere(/is owned by uid 4242/);
    chownSync(file(), 0, 0);
    chownSync(folder(), 4242, 4242);
    await refusedEverywhere(/its folder .*rfs is owned by uid 4242/);
  });
});

describe('a save while another holds the lock', () => {
  // The lock as another live rfs would hold it: its pid (a process of its own) and this host.
  let holder: ChildProcess | undefined;
  afterEach(() => {
    holder?.kill();
    holder = undefined;
  });
  const holdLock = (): string => {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    const here = lockHost();
    const lines = [String(holder.pid), new Date().toISOString(), `host=${here.host}`];
    if (here.boot !== undefined) lines.push(`boot=${here.boot}`);
    if (here.pidNamespace !== undefined) lines.push(`pidns=${here.pidNamespace}`);
    const lock = `${file()}.lock`;
    writeFileSync(lock, `${lines.join('\n')}\n`, { flag: 'wx' });
    return lock;
  };

  it('waits past a few seconds of another save, and keeps what it saw', async () => {
    const lock = holdLock();
    const time = fakeTime(Date.now());
    const m = RememberedSubscriptions.open(env(), workspace, Date.now, { lockClock: time.clock });
    m.saw([{ id: 'wh_waited', url: null }]);
    const saving = m.save();
    // Held for 4 s of the save's time, then let go.
    const until = time.now + 4000;
    while (time.now < until) await new Promise((resolve) => setImmediate(resolve));
    unlinkSync(lock);
    expect(await saving).toBe(true);
    expect(m.takeProblems()).toEqual([]);
    expect(ids(RememberedSubscriptions.open(env(), workspace, Date.now))).toEqual(['wh_waited']);
  });

  it('says what it could not save when the lock stays held', async () => {
    holdLock();
    const time = fakeTime(Date.now());
    const m = RememberedSubscriptions.open(env(), workspace, Date.now, { lockClock: time.clock });
    m.saw([{ id: 'wh_lost', url: null }]);
    expect(await m.save()).toBe(false);
    const problems = m.takeProblems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /not saved \(another rfs held .*subscriptions\.json\.lock for \d+ s\): this run's 1 subscription \(wh_lost\)/,
    );
  });

  it('twenty runs saving at once keep all twenty ids', async () => {
    const script = join(dir, 'saver.mjs');
    const { build } = await import('esbuild');
    await build({
      stdin: {
        contents: `import { RememberedSubscriptions } from ${JSON.stringify(new URL('../../src/config/remembered-subscriptions.ts', import.meta.url).pathname)};
const memory = RememberedSubscriptions.open(process.env, ${JSON.stringify(workspace)}, () => Date.now());
memory.saw([{ id: process.argv[2], url: null }]);
const ok = await memory.save();\nif (!ok) console.error(memory.takeProblems());\nprocess.exit(ok ? 0 : 3);`,
        resolveDir: dir,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      logLevel: 'silent',
    });
    const run = (id: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [script, id], {
          env: { PATH: process.env.PATH, XDG_STATE_HOME: join(dir, 'state') },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        child.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
        child.on('exit', resolve);
      });
    const all = Array.from({ length: 20 }, (_, i) => `wh_run${String(i).padStart(2, '0')}`);
    expect(await Promise.all(all.map(run))).toEqual(all.map(() => 0));
    expect(ids(RememberedSubscriptions.open(env(), workspace, Date.now))).toEqual(all);
  }, 60_000);
});
