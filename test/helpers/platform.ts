// What some tests need of the machine beyond Node, said once: on another machine they are
// skipped, with the reason in their name, rather than failing for a reason that is not rfs's.
//
//   describe.skipIf(!TMUX.met)(needs(TMUX, 'rfs in a terminal'), () => { … });
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Requirement {
  met: boolean;
  /** Why a test is skipped when the requirement is not met. */
  reason: string;
}

/** A program on PATH that this process may run. */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const linux = process.platform === 'linux';

/** /proc, process groups, signals and file modes as Linux has them. */
export const LINUX: Requirement = { met: linux, reason: `needs Linux (this is ${process.platform})` };

/** A real terminal: a private tmux server, watched through /proc. */
export const TMUX: Requirement = linux ? { met: onPath('tmux'), reason: 'needs tmux on PATH (apt-get install tmux)' } : LINUX;

/** The single executable is built for, and runs on, Linux x64 only. */
export const LINUX_X64: Requirement = {
  met: linux && process.arch === 'x64',
  reason: `needs Linux on x64, the one single executable built (this is ${process.platform}-${process.arch})`,
};

/** The title of a suite or test, with the reason appended when it will be skipped. */
export function needs(requirement: Requirement, title: string): string {
  return requirement.met ? title : `${title} [skipped: ${requirement.reason}]`;
}

/** Root, with useradd and userdel: to make another user for a test and remove it after. */
export const ROOT_USERS: Requirement = !linux
  ? LINUX
  : process.geteuid?.() !== 0
    ? { met: false, reason: 'needs to run as root (it creates a user for the test)' }
    : { met: onPath('useradd') && onPath('userdel'), reason: 'needs useradd and userdel on PATH (the passwd package)' };
