// The one rule for every file rfs writes or changes the mode of (the config, the state and
// history files, the sync journal, the sandbox's --data): rfs acts on the file at the name it
// was given, never through a symbolic link someone else put there. A link found at such a name
// is refused, not followed (a write or a chmod through it would land on whatever the link
// points to: a file of another program, or, for root, any file at all), and a mode is changed
// only on a regular file of this user's, through a descriptor opened without following links
// (a path checked and then chmodded by name could be swapped for a link in between).
//
// Reading follows links as any program does: only writing and changing modes are refused.
import { closeSync, constants, fchmodSync, fstatSync, promises as fsp, lstatSync, openSync, type Stats } from 'node:fs';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO at the name would otherwise block the open until something reads it.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK;

/** A file rfs will not write or change: a link at its name, or not a regular file. */
export class NotOwnFileError extends Error {
  readonly code: 'ELOOP' | 'EFTYPE';
  constructor(
    readonly file: string,
    kind: 'link' | 'not-regular',
  ) {
    super(
      kind === 'link'
        ? `${file} is a symbolic link: rfs writes only the file itself, never through a link it did not make`
        : `${file} is not a regular file (a FIFO, a device or a folder): rfs does not write it`,
    );
    this.name = 'NotOwnFileError';
    this.code = kind === 'link' ? 'ELOOP' : 'EFTYPE';
  }
}

function isLinkRefusal(error: unknown): boolean {
  // O_NOFOLLOW on a link: ELOOP on Linux, EMLINK on FreeBSD, EFTYPE on NetBSD.
  return ['ELOOP', 'EMLINK', 'EFTYPE'].includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** Throws NotOwnFileError when `file` is a symbolic link; a missing file is fine. */
export function refuseLink(file: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(file);
  } catch {
    return; // Missing (it will be created), or unreadable (the write itself reports why).
  }
  if (stats.isSymbolicLink()) throw new NotOwnFileError(file, 'link');
}

export interface ModeOptions {
  /** What `path` must be (default a file). */
  kind?: 'file' | 'directory';
  /** 'exact' sets `mode`; 'tighten' (default) only takes away what `mode` does not grant. */
  change?: 'exact' | 'tighten';
}

/**
 * Sets the permission bits of `path` to `mode`, when it is a regular file (or a folder, as
 * asked) owned by this user; a link, another user's file or anything else is left as it is.
 * Answers whether the mode was changed. Nothing to do on Windows, which has no such modes.
 */
export function setOwnMode(path: string, mode: number, options: ModeOptions = {}): boolean {
  if (process.platform === 'win32') return false;
  const directory = options.kind === 'directory';
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK | (directory ? DIRECTORY : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || isLinkRefusal(error)) return false;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!(directory ? stats.isDirectory() : stats.isFile())) return false;
    if (typeof process.geteuid === 'function' && stats.uid !== process.geteuid()) return false;
    const current = stats.mode & 0o7777;
    const wanted = options.change === 'exact' ? mode : current & mode;
    if (current === wanted) return false;
    fchmodSync(fd, wanted);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The error of a failed open to append: a link, or a FIFO without a reader (O_NONBLOCK), refused. */
function appendRefusal(file: string, error: unknown): unknown {
  if (isLinkRefusal(error)) return new NotOwnFileError(file, 'link');
  if ((error as NodeJS.ErrnoException).code === 'ENXIO') return new NotOwnFileError(file, 'not-regular');
  return error;
}

function checkAppendable(file: string, stats: Stats): void {
  if (!stats.isFile()) throw new NotOwnFileError(file, 'not-regular');
}

/**
 * Opens `file` to append to, created with `mode` when missing: never through a link at its name,
 * and only when it is a regular file. Answers the descriptor.
 */
export function openAppendSync(file: string, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(file, APPEND_FLAGS, mode);
  } catch (error) {
    throw appendRefusal(file, error);
  }
  try {
    checkAppendable(file, fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** openAppendSync, without blocking the event loop: answers the file handle. */
export async function openAppend(file: string, mode = 0o600): Promise<fsp.FileHandle> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, APPEND_FLAGS, mode);
  } catch (error) {
    throw appendRefusal(file, error);
  }
  try {
    checkAppendable(file, await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Appends `text` (or its pieces, one after the other) to `file` (openAppend's rules), then closes it. */
export async function appendOwnFile(file: string, text: string | Iterable<string>, mode = 0o600): Promise<void> {
  const handle = await openAppend(file, mode);
  try {
    if (typeof text === 'string') await handle.writeFile(text);
    else for (const piece of text) if (piece !== '') await handle.writeFile(piece);
  } finally {
    await handle.close();
  }
}
