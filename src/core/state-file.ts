// The one rule for a state file rfs reads back and acts on (the inspector's history, the
// remembered subscriptions): it is read only when it is this user's own, so that nobody else
// can put words in it. A symbolic link at its name (its target may be any file), anything but a
// regular file, a file another user owns or one group or others may write, and a file in a
// folder that is not this user's own or that others may write (they could swap the file in
// between) are refused before anything is read. And a file rfs cannot read back (over the size
// it reads, or not what it wrote) is set aside under a name of its own, never written over: what
// it held may be wanted, and a run that rewrote it would silently lose it.
import { lstatSync, renameSync, type Stats } from 'node:fs';
import path from 'node:path';

/** Why a file (or the folder it is in, `what`) is not this user's own; undefined when it is. */
export function untrustedWhy(stats: Stats, euid: number | undefined = process.geteuid?.()): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (euid === undefined) return undefined; // Windows: no owners or modes to judge by.
  if (stats.uid !== euid) return `is owned by uid ${stats.uid}`;
  if ((stats.mode & 0o022) !== 0) return 'is writable by group or others';
  return undefined;
}

/** What stands at a state file's name, judged by the rule above. */
export type StateFileCheck =
  | { kind: 'missing' }
  | { kind: 'own'; stats: Stats }
  /** `why` names the file or the folder and what is wrong with it. */
  | { kind: 'refused'; why: string };

/**
 * Judges `file` and its folder without following links and without reading the file. A folder
 * that does not exist yet is fine (rfs will make it, 0700).
 */
export function checkStateFile(file: string): StateFileCheck {
  const folder = path.dirname(file);
  const folderStats = lstatOrNull(folder);
  if (folderStats !== null) {
    if (!folderStats.isDirectory()) return { kind: 'refused', why: `${folder} is not a folder` };
    const why = untrustedWhy(folderStats);
    if (why !== undefined) return { kind: 'refused', why: `its folder ${folder} ${why}` };
  }
  const stats = lstatOrNull(file);
  if (stats === null) return { kind: 'missing' };
  // What it is comes first (a device is "not a regular file" before it is "writable by others").
  const why = stats.isFile() || stats.isSymbolicLink() ? untrustedWhy(stats) : 'is not a regular file';
  return why === undefined ? { kind: 'own', stats } : { kind: 'refused', why: `${file} ${why}` };
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * Moves an unreadable state file aside, beside itself: `<name>.unreadable-<time>` (the time in
 * UTC, to the second). Answers the new name; throws when the rename fails.
 */
export function setAside(file: string, now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let aside = `${file}.unreadable-${stamp}`;
  for (let n = 2; lstatOrNull(aside) !== null; n++) aside = `${file}.unreadable-${stamp}-${n}`;
  renameSync(file, aside);
  return aside;
}
