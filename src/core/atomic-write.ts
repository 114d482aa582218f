// Replacing a file so that a crash or a power cut leaves either the old contents or the new,
// never a mix or an empty file: a temporary file in the same folder (a rename is atomic only
// within one filesystem), written and fsynced, renamed over the target, then the folder fsynced
// so that the rename itself is on disk. The temporary file is removed when any step fails.
// The config file, the sync journal's compaction and the sandbox's --data all write this way.
// A symbolic link at the target's name is refused (core/own-file.ts): the rename would not
// write through it, but it would silently replace a link the user made with a file.
//
// Every command reads the config through the module that writes it, so this one loads nothing
// that a read does not need: fs.promises (node:fs/promises, and the readline modules it brings)
// is read only when the asynchronous writer runs, and no node:crypto.
import { closeSync, promises as fsp, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './lock.js';
import { refuseLink } from './own-file.js';

export interface AtomicWriteOptions {
  /** The new file's permissions (default 0600: every file rfs writes this way may hold a secret). */
  mode?: number;
}

const DEFAULT_MODE = 0o600;

// Hidden, and unique per call, so two writers never share a temporary file; the random part
// keeps a file left by a killed process from blocking one with the same pid (containers reuse
// them). It is opened with O_EXCL ('wx'): a file or link already at that name fails the write
// instead of being followed, so the name need not be unguessable (no node:crypto here).
function tempPath(file: string): string {
  const random = Math.floor(Math.random() * 2 ** 32).toString(16);
  return join(dirname(file), `.${basename(file)}.${process.pid}.${random}.tmp`);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes the temporary files that writers of `file` killed mid-write (SIGKILL, power cut) left
 * behind: those of a process that no longer runs. A live writer's file is left alone. Answers
 * the names removed.
 */
export function removeStaleTemporaryFiles(file: string): string[] {
  const dir = dirname(file);
  const pattern = new RegExp(`^\\.${escapeRegExp(basename(file))}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // No folder yet: nothing was ever written there.
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || processAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // Already gone (another cleaner), or not ours to remove: the next start tries again.
    }
  }
  return removed;
}

// Some filesystems (and platforms) refuse fsync on a folder: the rename is done, and its
// durability is then theirs. Any other failure (EIO) is reported.
function refusedFolderSync(error: unknown): boolean {
  return ['EINVAL', 'ENOTSUP', 'EISDIR', 'EPERM', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '');
}

function syncFolderSync(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return; // A folder cannot be opened on every platform (Windows): the rename still happened.
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!refusedFolderSync(error)) throw error;
  } finally {
    closeSync(fd);
  }
}

/** Replaces `file` with `data`, atomically and durably, blocking until it is on disk. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  refuseLink(file);
  const temp = tempPath(file);
  try {
    const fd = openSync(temp, 'wx', options.mode ?? DEFAULT_MODE);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    throw error;
  }
  syncFolderSync(dirname(file));
}

/**
 * Replaces `file` with `data`, atomically and durably, without blocking the event loop. `data`
 * may come in pieces (an iterable of strings, written one after the other as they are made), so
 * that a large file is never held whole.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array | AsyncIterable<string>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  refuseLink(file);
  const { open, rename, unlink } = fsp;
  const temp = tempPath(file);
  try {
    const handle = await open(temp, 'wx', options.mode ?? DEFAULT_MODE);
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else for await (const piece of data) await handle.writeFile(piece);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  let folder: Awaited<ReturnType<typeof open>>;
  try {
    folder = await open(dirname(file), 'r');
  } catch {
    return;
  }
  try {
    await folder.sync();
  } catch (error) {
    if (!refusedFolderSync(error)) throw error;
  } finally {
    await folder.close();
  }
}
