// The command's stdin, whole before the command starts (cli.md, sync). Written into a pipe, the
// detail reaches the command only as rfs keeps writing: rfs killed half-way leaves a running
// command reading a cut body, or none. So the detail goes into a file first, and the command is
// started with that file as its stdin: what it reads is complete whatever happens to rfs.
//
// The file is made in a private folder (0700) of this process, 0600, and unlinked as soon as
// it is opened: its content lives on only through the open descriptor (the command's stdin),
// and nothing of a recording is left on disk once the command has ended, even after a crash.
import { closeSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let folder: string | undefined;
let files = 0;

function privateFolder(): string {
  if (folder === undefined) {
    // mkdtemp makes the folder 0700.
    const made = mkdtempSync(join(tmpdir(), 'rfs-sync-'));
    folder = made;
    process.once('exit', () => {
      try {
        rmdirSync(made);
      } catch {
        // Gone already, or a file is being made in it at this very moment.
      }
    });
  }
  return folder;
}

/**
 * A descriptor of a file holding all of `text`, already unlinked: pass it as the child's
 * stdin, then close it. The text is written with positioned writes, so
 * the descriptor's own offset stays at 0 for the command to read from.
 */
export function completeInput(text: string): number {
  files += 1;
  const path = join(privateFolder(), `stdin-${files}`);
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, written);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
