// bin/rfs.js's V8 code cache is code: V8 runs what a cache holds, checking only its version, its
// flags and the source's length. These runs plant caches that V8 would take (the same length,
// a correct checksum) but that are not the user's own, damage a real one byte by byte, and put
// FIFOs and links where rfs reads and writes it (bin/rfs.js, "The code cache is code").
import { type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../helpers/child.js';
import { LINUX, needs, ROOT_USERS } from '../helpers/platform.js';

const BUNDLE = join(RFS_BIN, '..', '..', 'dist', 'bundle', 'rfs.cjs');
/** The bundle's second script (scripts/commonjs-bundle.mjs, bundleSplit), with a cache of its own. */
const SECOND = join(BUNDLE, '..', 'rfs-more.cjs');
/** A command that runs from the second script. */
const SECOND_ARGS = ['completion', 'bash'];
const TAG = 'rfs-code-cache crc32 ';
const MARKER = 'PLANTED-CACHE-RAN';
/** A command that runs the bundle (a command's help, not the pre-rendered overview). */
const ARGS = ['webhooks', '--help'];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(
  bin: string,
  cacheHome: string,
  o: Pick<SpawnOptions, 'uid' | 'gid'> & { node?: string; onSpawn?: (pid: number) => void; args?: string[]; xdg?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.node ?? process.execPath, [bin, ...(o.args ?? ARGS)], {
      env: { PATH: process.env.PATH, HOME: cacheHome, XDG_CACHE_HOME: o.xdg ?? cacheHome, NODE_DEBUG: 'rfs-bundle', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: o.uid,
      gid: o.gid,
    });
    if (child.pid !== undefined) o.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The cache file's name for a bundle, as bin/rfs.js makes it. */
function cacheName(bundle: string): string {
  const id = /^\/\/ rfs bundle ([0-9a-f]+)\n/.exec(readFileSync(bundle, 'latin1'))?.[1];
  expect(id).toBeDefined();
  return `${id}-v8-${process.versions.v8}-${process.arch}.cache`;
}

/** A cache file as rfs writes it: the checksum of the bundle's bytes and the data, then the data. */
function withChecksum(bundle: Buffer, data: Buffer): Buffer {
  const sum = crc32(data, crc32(bundle)).toString(16).padStart(8, '0');
  return Buffer.concat([Buffer.from(`${TAG}${sum}\n`, 'latin1'), data]);
}

/** Whether `file` is a cache of `bundle` that rfs would give V8: a correct checksum. */
function healthy(file: string, bundle: Buffer): boolean {
  const bytes = readFileSync(file);
  const header = bytes.subarray(0, TAG.length + 9).toString('latin1');
  return (
    lstatSync(file).isFile() &&
    header ===
      withChecksum(bundle, bytes.subarray(TAG.length + 9))
        .subarray(0, TAG.length + 9)
        .toString('latin1')
  );
}

/**
 * V8's cache of a program as long as the wrapped bundle that prints MARKER: V8 takes it for the
 * bundle. With rfs's checksum in front, only the owner and mode rules stand in its way.
 */
function craftedCache(bundle: Buffer): Buffer {
  const head = '(function (exports, require, module, __filename, __dirname) {\n';
  const tail = '\n})';
  const length = head.length + bundle.length + tail.length;
  const body = `process.stdout.write(${JSON.stringify(`${MARKER}\n`)});`;
  const planted = new Script(`${head}${body}${' '.repeat(length - head.length - body.length - tail.length)}${tail}`);
  planted.runInThisContext();
  return withChecksum(bundle, planted.createCachedData());
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'the code cache of bin/rfs.js'), () => {
  const bundle = readFileSync(BUNDLE);
  const name = cacheName(BUNDLE);
  let work: string;
  let clean: Run;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-code-cache-'));
    chmodSync(work, 0o755); // another user's runs reach their folders inside
    clean = await run(RFS_BIN, join(work, 'clean'));
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^Usage: rfs webhooks/);
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A cache folder of this user's, 0700, holding `cache` (written 0600) when given. */
  function folderWith(label: string, cache?: Buffer): { home: string; folder: string; file: string } {
    const home = join(work, label);
    const folder = join(home, 'rfs');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
    const file = join(folder, name);
    if (cache !== undefined) {
      writeFileSync(file, cache, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    return { home, folder, file };
  }

  it('runs a crafted cache that is the user own and intact: what the rules below keep out', async () => {
    // The control: without it, "no marker" below would prove nothing.
    const { home } = folderWith('control', craftedCache(bundle));
    const r = await run(RFS_BIN, home);
    expect(r.stdout).toBe(`${MARKER}\n`);
  });

  it('sets aside a cache writable by group or others (0666), and writes a good one', async () => {
    const { home, file } = folderWith('mode-0666', craftedCache(bundle));
    chmodSync(file, 0o666);
    const r = await run(RFS_BIN, home);
    expect(r.stdout).not.toContain(MARKER);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toMatch(/RFS-BUNDLE \d+: code cache set aside: writable by group or others \(mode 0666\)/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(healthy(file, bundle)).toBe(true);
  });

  it('sets aside a FIFO at the cache path instead of waiting on it', async () => {
    const { home, file } = folderWith('fifo');
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    const r = await run(RFS_BIN, home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toMatch(/code cache set aside: it is not a regular file/);
    expect(healthy(file, bundle)).toBe(true);
  });

  // mkdirSync's `recursive` loops for ever on Node 20 and 22 where mkdir answers ENOENT under a
  // folder that exists; the write was at exit, so rfs hung after its output. A cache is an
  // optimisation: without one, rfs runs. (run() kills the child after 20 s: a hang fails here.)
  it('runs without a cache when its folder cannot be made (XDG_CACHE_HOME=/proc/self)', async () => {
    const r = await run(RFS_BIN, join(work, 'proc-home'), { xdg: '/proc/self' });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toMatch(/code cache not written: ENOENT/);
  });

  it('escapes terminal controls of XDG_CACHE_HOME in what NODE_DEBUG=rfs-bundle prints', async () => {
    const hostile = join(work, 'esc-\u001b[31m-\u202e-\u0007');
    const r = await run(RFS_BIN, join(work, 'esc-home'), { xdg: hostile });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toContain(`no code cache yet at ${join(work, 'esc-\\x1b[31m-\\u202e-\\x07')}/rfs/`);
    expect(r.stderr).toContain(`code cache written to ${join(work, 'esc-\\x1b[31m-\\u202e-\\x07')}/rfs/`);
    expect(r.stderr).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(healthy(join(hostile, 'rfs', name), bundle)).toBe(true);
  });

  it('sets aside a link to /dev/zero at the cache path instead of reading it forever', async () => {
    const { home, file } = folderWith('dev-zero');
    symlinkSync('/dev/zero', file);
    const r = await run(RFS_BIN, home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toMatch(/code cache set aside: it is a symbolic link/);
    expect(healthy(file, bundle)).toBe(true);
    expect(statSync('/dev/zero').isCharacterDevice()).toBe(true);
  });

  it('never writes through a link planted at the cache path or at a temporary file name', async () => {
    const { home, folder, file } = folderWith('links');
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'not a cache\n', { mode: 0o644 });
    chmodSync(victim, 0o644);
    symlinkSync(victim, file);
    // The name rfs once wrote its temporary file under, planted as the run starts.
    const r = await run(RFS_BIN, home, { onSpawn: (pid) => symlinkSync(victim, `${file}.${pid}.tmp`) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(readFileSync(victim, 'utf8')).toBe('not a cache\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(healthy(file, bundle)).toBe(true);
    expect(readdirSync(folder).filter((f) => f.endsWith('.tmp') && !f.startsWith(`${name}.`))).toEqual([]);
  });

  // Every byte rfs reads takes one path: the header it compares, then the checksum over the
  // bundle and the data. One flip in each part of the file (a random byte of that part, a
  // different bit each) reaches every way a damaged byte can meet that comparison; more flips
  // of the same part would run the same code again, a process each.
  it('runs a byte flip in each part of a real cache (the tag, the checksum, the line end, the data at its start, middle and end) each as the clean run does, leaving a healthy cache', async () => {
    const { home, file } = folderWith('flips');
    const first = await run(RFS_BIN, home);
    expect(first.stdout).toBe(clean.stdout);
    const good = readFileSync(file);
    expect(healthy(file, bundle)).toBe(true);
    const header = TAG.length + 9;
    const dataLength = good.length - header;
    expect(dataLength).toBeGreaterThan(1024);
    const third = Math.floor(dataLength / 3);
    /** [first byte, end] of each part. */
    const parts: [string, number, number][] = [
      ['the tag', 0, TAG.length],
      ['the checksum', TAG.length, TAG.length + 8],
      ['the line end', header - 1, header],
      ['the data, first third', header, header + third],
      ['the data, middle third', header + third, header + 2 * third],
      ['the data, last third', header + 2 * third, good.length],
    ];
    for (const [i, [part, from, to]] of parts.entries()) {
      const at = from + Math.floor((randomBytes(4).readUInt32BE(0) / 2 ** 32) * (to - from));
      const flipped = Buffer.from(good);
      flipped[at] = flipped[at]! ^ (1 << ((i + randomBytes(1)[0]!) % 8));
      writeFileSync(file, flipped, { mode: 0o600 });
      const r = await run(RFS_BIN, home);
      expect({ part, flip: at, code: r.code, signal: r.signal, stdout: r.stdout }).toEqual({
        part,
        flip: at,
        code: 0,
        signal: null,
        stdout: clean.stdout,
      });
      expect(r.stderr).toMatch(/code cache set aside: its checksum does not match/);
      expect(healthy(file, bundle)).toBe(true);
    }
    const after = await run(RFS_BIN, home);
    expect(after.stderr).toMatch(/code cache accepted/);
    expect(after.stdout).toBe(clean.stdout);
  }, 120_000);

  // V8 compares only the length: an edit of the bundle that keeps it must not run the old code.
  it('does not run the cache of a bundle edited to the same length', async () => {
    const copy = join(work, 'package');
    cpSync(join(RFS_BIN, '..'), join(copy, 'bin'), { recursive: true });
    mkdirSync(join(copy, 'dist', 'bundle'), { recursive: true });
    copyFileSync(BUNDLE, join(copy, 'dist', 'bundle', 'rfs.cjs'));
    // What bin/rfs.js escapes NODE_DEBUG's lines with (scripts/build.mjs puts it beside the bundle).
    copyFileSync(join(BUNDLE, '..', 'sanitize.cjs'), join(copy, 'dist', 'bundle', 'sanitize.cjs'));
    copyFileSync(join(RFS_BIN, '..', '..', 'package.json'), join(copy, 'package.json'));
    const bin = join(copy, 'bin', 'rfs.js');
    const { home, file } = folderWith('edited');
    expect((await run(bin, home)).stdout).toBe(clean.stdout);
    expect(existsSync(file)).toBe(true);
    const text = bundle.toString('latin1');
    const word = 'manage webhook subscriptions';
    expect(text.split(word)).toHaveLength(2);
    expect(clean.stdout).toContain(word);
    writeFileSync(join(copy, 'dist', 'bundle', 'rfs.cjs'), text.replace(word, word.toUpperCase()), 'latin1');
    const r = await run(bin, home);
    expect(r.stdout).toContain(word.toUpperCase());
    expect(r.stderr).toMatch(/code cache set aside: its checksum does not match/);
  });

  // The second script's cache is code too, read from the same folder: the same rules, each
  // named in its messages.
  describe("the bundle's second script", () => {
    const second = readFileSync(SECOND);
    const secondName = cacheName(SECOND);
    let cleanSecond: Run;

    beforeAll(async () => {
      cleanSecond = await run(RFS_BIN, join(work, 'clean-second'), { args: SECOND_ARGS });
      expect(cleanSecond.code).toBe(0);
      expect(cleanSecond.stdout).toContain('complete -F');
      expect(cleanSecond.stderr).toMatch(/code cache written to .* \(rfs-more\.cjs\)/);
    }, 60_000);

    function secondCache(label: string, cache: Buffer): { home: string; file: string } {
      const { home, folder } = folderWith(label);
      const file = join(folder, secondName);
      writeFileSync(file, cache, { mode: 0o600 });
      chmodSync(file, 0o600);
      return { home, file };
    }

    it('runs a crafted cache of it that is the user own and intact: what the rules keep out', async () => {
      const { home } = secondCache('second-control', craftedCache(second));
      const r = await run(RFS_BIN, home, { args: SECOND_ARGS });
      expect(r.stdout).toContain(MARKER);
    });

    it('sets aside a cache of it writable by group or others (0666), and writes a good one', async () => {
      const { home, file } = secondCache('second-0666', craftedCache(second));
      chmodSync(file, 0o666);
      const r = await run(RFS_BIN, home, { args: SECOND_ARGS });
      expect(r.stdout).not.toContain(MARKER);
      expect(r.stdout).toBe(cleanSecond.stdout);
      expect(r.stderr).toMatch(/code cache set aside: writable by group or others \(mode 0666\) \(rfs-more\.cjs\)/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(healthy(file, second)).toBe(true);
    });

    it('sets aside a damaged cache of it (byte flips) and runs as the clean run does', async () => {
      const { home, folder } = folderWith('second-flips');
      expect((await run(RFS_BIN, home, { args: SECOND_ARGS })).stdout).toBe(cleanSecond.stdout);
      const file = join(folder, secondName);
      const good = readFileSync(file);
      for (let i = 0; i < 5; i++) {
        const at = Math.floor(((i + randomBytes(1)[0]! / 256) * good.length) / 5);
        const flipped = Buffer.from(good);
        flipped[at] = flipped[at]! ^ (1 << (i % 8));
        writeFileSync(file, flipped, { mode: 0o600 });
        const r = await run(RFS_BIN, home, { args: SECOND_ARGS });
        expect({ flip: at, code: r.code, stdout: r.stdout }).toEqual({ flip: at, code: 0, stdout: cleanSecond.stdout });
        expect(r.stderr).toMatch(/code cache set aside: its checksum does not match this bundle and its bytes \(rfs-more\.cjs\)/);
        expect(healthy(file, second)).toBe(true);
      }
    }, 60_000);
  });

  describe.skipIf(!ROOT_USERS.met)(needs(ROOT_USERS, 'with another user made for the test'), () => {
    const user = `rfs-cache-${randomBytes(4).toString('hex')}`;
    let uid: number;
    let gid: number;
    /**
     * This Node, copied where the other user can run it: the one running the suite may live in a
     * folder only root reaches (CI's Node 26 is in /root/.cache). A copy runs the same V8, so the
     * caches it checks and writes are the same.
     */
    let node: string;

    beforeAll(() => {
      node = join(work, 'node-bin', 'node');
      mkdirSync(join(work, 'node-bin'), { mode: 0o755 });
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
      const made = spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', user], { encoding: 'utf8' });
      expect(made.stderr).toBe('');
      uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
      gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
      expect(uid).toBeGreaterThan(0);
    });
    afterAll(() => {
      expect(spawnSync('userdel', [user]).status).toBe(0);
    });

    it('as root, sets aside a cache another user owns in root folder', async () => {
      const { home, file } = folderWith('foreign-file', craftedCache(bundle));
      chownSync(file, uid, gid);
      const r = await run(RFS_BIN, home);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(new RegExp(`code cache set aside: owned by uid ${uid}, not 0`));
      expect(lstatSync(file).uid).toBe(0);
      expect(healthy(file, bundle)).toBe(true);
    });

    // `sudo -E rfs …` keeps HOME: root finds the user's cache folder, and neither reads nor writes it.
    it('as root, neither runs nor writes a cache in a folder another user owns', async () => {
      const { home, folder, file } = folderWith('foreign-folder', craftedCache(bundle));
      chownSync(folder, uid, gid);
      chownSync(file, uid, gid);
      const r = await run(RFS_BIN, home);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(new RegExp(`code cache not used: the folder is owned by uid ${uid}, not 0`));
      expect(readdirSync(folder)).toEqual([name]);
      expect(lstatSync(file).uid).toBe(uid);
    });

    // `sudo -E` with no cache folder yet: root must not make one in the user's home (a root-owned
    // ~/.cache locks the user out of their own cache folder).
    it('as root with another user home and no cache folder there, makes none', async () => {
      const home = join(work, 'sudo-home');
      mkdirSync(home, { mode: 0o755 });
      chownSync(home, uid, gid);
      const r = await run(RFS_BIN, home);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(new RegExp(`code cache not written: ${home} is owned by uid ${uid}, not 0`));
      expect(readdirSync(home)).toEqual([]);
    });

    it('as root, never follows a link the other user planted at the cache folder', async () => {
      const home = join(work, 'planted-link');
      mkdirSync(home, { mode: 0o755 });
      const victim = join(work, 'root-folder');
      mkdirSync(victim, { mode: 0o700 });
      const planted = join(victim, 'dddd-v8-x.cache');
      writeFileSync(planted, 'kept\n');
      symlinkSync(victim, join(home, 'rfs'));
      chownSync(home, uid, gid);
      const r = await run(RFS_BIN, home);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(/the folder is a symbolic link/);
      expect(readdirSync(victim)).toEqual(['dddd-v8-x.cache']);
      expect(readFileSync(planted, 'utf8')).toBe('kept\n');
    });

    // A root-owned cache folder (left by an older `sudo -E rfs`) inside a folder the other user
    // owns: that user may swap the folder's entry for a link between rfs's checks and its writes,
    // taking the temporary file, the rename and the pruning to a folder of their choosing.
    it('as root, writes no cache in its own cache folder inside a folder another user owns', async () => {
      const { home, folder } = folderWith('root-folder-in-foreign');
      chownSync(home, uid, gid);
      const r = await run(RFS_BIN, home);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(new RegExp(`code cache not written: ${home} is owned by uid ${uid}, not 0`));
      expect(readdirSync(folder)).toEqual([]);
    });

    it('as the other user, sets aside a cache root left in its folder, and a 0666 one of its own', async () => {
      const { home, folder, file } = folderWith('other-user', craftedCache(bundle));
      chownSync(home, uid, gid);
      chownSync(folder, uid, gid);
      chmodSync(file, 0o644); // left by `sudo rfs`, readable: V8 would take it
      const asUser = { uid, gid, node };
      const r = await run(RFS_BIN, home, asUser);
      expect(r.stdout).toBe(clean.stdout);
      expect(r.stderr).toMatch(new RegExp(`code cache set aside: owned by uid 0, not ${uid}`));
      expect(lstatSync(file).uid).toBe(uid);
      expect(healthy(file, bundle)).toBe(true);

      writeFileSync(file, craftedCache(bundle));
      chownSync(file, uid, gid);
      chmodSync(file, 0o666);
      const again = await run(RFS_BIN, home, asUser);
      expect(again.stdout).toBe(clean.stdout);
      expect(again.stderr).toMatch(/code cache set aside: writable by group or others \(mode 0666\)/);
      expect(healthy(file, bundle)).toBe(true);
    });
  });
});
