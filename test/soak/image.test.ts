// A run of minutes (the image is built from the executable, then run in a PID namespace): in the
// soak project, which CI runs after the suite.
// The OCI image of scripts/image.mjs, built here from this build's single executable
// (dist/rfs-linux-x64; the arm64 one is a stand-in file, run only by the release check under
// qemu): umoci unpacks each platform by its name and skopeo reads the multi-platform one
// (release.md, "Checked before it is called a release"); and in a PID namespace of its own, the
// image's entrypoint (the init, then rfs) reaps what `sync --exec` commands leave behind, where
// rfs alone as PID 1 leaves a zombie per command (docs/kubernetes.md, "PID 1").
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxProcess, startSandboxProcess } from '../helpers/child.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXECUTABLE = join(ROOT, 'dist', 'rfs-linux-x64');
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const STEP_TIMEOUT_MS = 600_000;
/** chroot(8) by its path: the child's PATH is the image's, which has no sbin. */
const CHROOT = ['/usr/sbin/chroot', '/usr/bin/chroot'].find((path) => existsSync(path)) ?? 'chroot';

interface ImageModule {
  buildImage(o: {
    work: string;
    executables: Record<string, string>;
    file: string;
    mtime: Date;
    labels: Record<string, string>;
  }): Promise<void>;
  ENTRYPOINT: string[];
  INIT: string[];
  RFS_PATH: string;
  IMAGE_USER: number;
  IMAGE_ENV: Record<string, string>;
  platformTag(version: string, architecture: string): string;
}
const image = (await import(join(ROOT, 'scripts', 'image.mjs'))) as ImageModule;

let scratch: string;
let archive: string;
let layout: string;
const sandboxes: SandboxProcess[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(EXECUTABLE)) throw new Error(`${EXECUTABLE} is missing: run npm run build first`);
  scratch = mkdtempSync(join(tmpdir(), 'rfs-image-'));
  const standIn = join(scratch, 'rfs-linux-arm64');
  writeFileSync(standIn, '#!/bin/sh\necho stand-in\n', { mode: 0o755 });
  archive = join(scratch, `rfs-${VERSION}-oci.tar`);
  await image.buildImage({
    work: join(scratch, 'work'),
    executables: { 'linux-x64': EXECUTABLE, 'linux-arm64': standIn },
    file: archive,
    mtime: new Date('2026-11-28T00:00:00Z'),
    labels: { 'org.opencontainers.image.version': VERSION },
  });
  // umoci reads an image layout (a folder): the archive unpacked, as docs/kubernetes.md shows.
  layout = join(scratch, 'layout');
  execFileSync('mkdir', [layout]);
  execFileSync('tar', ['-xf', archive, '-C', layout]);
}, STEP_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const sandbox of sandboxes) await sandbox.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `umoci unpack` of one platform's name into a bundle; its root file system. */
function umociUnpack(architecture: string, name = architecture): string {
  const bundle = join(scratch, `bundle-${name}`);
  execFileSync('umoci', ['unpack', '--image', `${layout}:${image.platformTag(VERSION, architecture)}`, bundle], { stdio: 'pipe' });
  return join(bundle, 'rootfs');
}

describe('the OCI image, read by umoci and skopeo', () => {
  it(
    'umoci unpacks each platform by its name; skopeo reads the multi-platform image by the version',
    () => {
      // The version names both platforms: umoci cannot choose one, and says so.
      const ambiguous = (() => {
        try {
          execFileSync('umoci', ['unpack', '--image', `${layout}:${VERSION}`, join(scratch, 'bundle-both')], { stdio: 'pipe' });
          return '';
        } catch (error) {
          return String((error as { stderr?: Buffer }).stderr);
        }
      })();
      expect(ambiguous).toContain('tag is ambiguous');
      for (const architecture of ['amd64', 'arm64']) {
        const rootfs = umociUnpack(architecture);
        const config = JSON.parse(readFileSync(join(rootfs, '..', 'config.json'), 'utf8'));
        expect(config.process.args).toEqual([...image.ENTRYPOINT, '--help']);
        expect(config.process.user).toMatchObject({ uid: image.IMAGE_USER, gid: image.IMAGE_USER });
        expect(readdirSync(join(rootfs, 'usr', 'bin')).sort()).toEqual(['rfs', 'tini']);
      }
      const index = JSON.parse(execFileSync('skopeo', ['inspect', '--raw', `oci-archive:${archive}:${VERSION}`], { encoding: 'utf8' }));
      expect(index.manifests.map((m: { platform: { architecture: string } }) => m.platform.architecture).sort()).toEqual([
        'amd64',
        'arm64',
      ]);
      const arm = JSON.parse(
        execFileSync('skopeo', ['inspect', '--config', '--override-arch', 'arm64', `oci-archive:${archive}:${VERSION}`], {
          encoding: 'utf8',
        }),
      );
      expect(arm.architecture).toBe('arm64');
      expect(arm.config.Entrypoint).toEqual(image.ENTRYPOINT);
    },
    STEP_TIMEOUT_MS,
  );
});

/** pid → [parent pid, state] of every process of this machine, from /proc. */
function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(ppid), state: state ?? '?' });
    } catch {
      // Gone while we read.
    }
  }
  return table;
}

/** The processes under `pid` (not itself), as running ones and zombies. */
function descendants(pid: number): { running: number; zombies: number } {
  const table = processTable();
  const under = new Set<number>([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, { ppid }] of table) {
      if (!under.has(child) && under.has(ppid)) {
        under.add(child);
        grew = true;
      }
    }
  }
  under.delete(pid);
  let running = 0;
  let zombies = 0;
  for (const child of under) {
    if (table.get(child)?.state === 'Z') zombies += 1;
    else running += 1;
  }
  return { running, zombies };
}

async function until(condition: () => boolean, what: () => string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`it ended (${child.exitCode ?? child.signalCode}) before ${what()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `rfs sync --watch` in the unpacked amd64 root, chrooted as the image's user, in a PID namespace
 * of its own (`unshare -p -f --mount-proc`), started by `entrypoint`. Each command leaves a
 * background child that outlives it (the image has only dash: a busy loop of dash's builtins),
 * orphaned to the namespace's PID 1. Once 12 s have passed, every command has run and every
 * orphan has ended, it answers what is left under the namespace's first process.
 */
async function runSync(rootfs: string, entrypoint: string[]) {
  // A sandbox of its own: each run files recordings that no earlier run has.
  const sandbox = await startSandboxProcess(['--recordings', '12']);
  sandboxes.push(sandbox);
  const ran = join(rootfs, 'tmp', 'ran');
  rmSync(ran, { force: true });
  const command = 'echo x >> /tmp/ran; ( i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done & ); echo "crm-$RFS_RECORDING_ID"';
  const started = Date.now();
  const child = spawn(
    'unshare',
    [
      '-p',
      '-f',
      '--mount-proc',
      '--kill-child',
      CHROOT,
      `--userspec=${image.IMAGE_USER}:${image.IMAGE_USER}`,
      rootfs,
      ...entrypoint,
      'sync',
      '--exec',
      command,
      '--provider',
      'crm',
      '--watch',
      '--interval',
      '3600',
      '-o',
      'ndjson',
      // A journal of its own: the run before was killed holding its lock, and without /proc in
      // this chroot (a container has one) the lock's pid is all there is to judge it by.
      '--journal',
      `/tmp/journal-${entrypoint.length}.jsonl`,
    ],
    {
      // The image's environment, and nothing of this machine's (NODE_OPTIONS, extra CA files).
      env: { ...image.IMAGE_ENV, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const unshare = child.pid as number;
  const commands = () => (existsSync(ran) ? readFileSync(ran, 'utf8').split('\n').length - 1 : 0);
  const filed = () => stdout.split('\n').filter((line) => line.includes('"ok":true')).length;
  // The namespace's first process (the entrypoint's first program) is unshare's one child.
  const first = () => [...processTable()].find(([, p]) => p.ppid === unshare)?.[0];
  try {
    await until(
      () => first() !== undefined,
      () => `the PID namespace: ${stderr}`,
      child,
    );
    const pid1 = first() as number;
    // Left running at the end: rfs (under an init), or nothing else (rfs is the first process).
    const resident = entrypoint.length > 1 ? 1 : 0;
    await until(
      () => Date.now() - started >= 12_000 && filed() >= 3 && filed() === commands() && descendants(pid1).running === resident,
      () => `the pass, its commands and their orphans to end (stdout ${stdout.slice(-300)}, stderr ${stderr.slice(-300)})`,
      child,
    );
    return { commands: commands(), filed: filed(), ...descendants(pid1) };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('PID 1 in the image', () => {
  it(
    "the image's entrypoint reaps the orphans of sync --exec commands: no zombie after 12 s; rfs alone as PID 1 keeps one per command",
    async () => {
      const rootfs = umociUnpack('amd64', 'amd64-run');
      expect(image.ENTRYPOINT).toEqual([...image.INIT, image.RFS_PATH]);
      // Without the init, as the image was: every orphan stays a zombie of rfs (PID 1).
      const bare = await runSync(rootfs, [image.RFS_PATH]);
      expect(bare.zombies).toBe(bare.commands);
      expect(bare.commands).toBeGreaterThanOrEqual(3);
      // The image's entrypoint: the same commands, nothing left.
      const reaped = await runSync(rootfs, image.ENTRYPOINT);
      expect(reaped.commands).toBeGreaterThanOrEqual(3);
      expect(reaped.zombies).toBe(0);
    },
    STEP_TIMEOUT_MS,
  );
});
