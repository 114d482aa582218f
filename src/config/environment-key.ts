// The key a run's environment gives (cli.md, Connection and credentials): `RFS_API_KEY`, or the
// file that `RFS_API_KEY_FILE` names — a Secret mounted as a file in Kubernetes
// (docs/kubernetes.md), where a key in the environment would reach every process the container
// starts and every `kubectl describe`. The key file is read here and nowhere else, and its text
// is never quoted in a message: whatever it holds may be a secret.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { sanitize } from '../core/sanitize.js';
import { envValue } from './settings.js';

export const API_KEY_ENV = 'RFS_API_KEY';
export const API_KEY_FILE_ENV = 'RFS_API_KEY_FILE';
/** A key is tens of bytes: a file far larger is not a key file (and /dev/zero is no file). */
const MAX_KEY_FILE_BYTES = 4096;

export interface EnvironmentKey {
  /** As read, whitespace around it trimmed: checked for its format where it is used. */
  key: string;
  /** The variable that gave it, for `rfs auth status` and `rfs doctor`. */
  from: typeof API_KEY_ENV | typeof API_KEY_FILE_ENV;
}

/** Whether the environment gives a key at all (either variable set), without reading the file. */
export function environmentGivesKey(env: NodeJS.ProcessEnv): boolean {
  return envValue(env, API_KEY_ENV) !== undefined || envValue(env, API_KEY_FILE_ENV) !== undefined;
}

/**
 * `RFS_API_KEY`, else the text of the file `RFS_API_KEY_FILE` names (a trailing newline and
 * spaces around it ignored), else undefined. Both set is exit 2: which one wins would be a guess.
 * The file is followed through links (a Kubernetes Secret volume is links into `..data/`), and
 * must be a regular file of at most 4 KiB holding something.
 */
export function environmentKey(env: NodeJS.ProcessEnv): EnvironmentKey | undefined {
  const direct = envValue(env, API_KEY_ENV);
  const file = envValue(env, API_KEY_FILE_ENV);
  if (direct !== undefined && file !== undefined) {
    throw new UsageError(`both ${API_KEY_ENV} and ${API_KEY_FILE_ENV} are set: give the key one way`, {
      hint: `unset one of them (${API_KEY_FILE_ENV} names a file holding the key)`,
    });
  }
  if (direct !== undefined) return { key: direct, from: API_KEY_ENV };
  if (file === undefined) return undefined;
  return { key: readKeyFile(file), from: API_KEY_FILE_ENV };
}

function readKeyFile(path: string): string {
  const named = `the key file ${sanitize(path)} (${API_KEY_FILE_ENV})`;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO at the path must not hold the run until a writer comes.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new UsageError(`cannot read ${named}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`, {
      hint: `${API_KEY_FILE_ENV} names a file that holds the API key (service_pk_…)`,
    });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${named} is not a regular file`);
    if (stat.size > MAX_KEY_FILE_BYTES) throw new UsageError(`${named} is ${stat.size} bytes: an API key file holds one key`);
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > MAX_KEY_FILE_BYTES) throw new UsageError(`${named} is over ${MAX_KEY_FILE_BYTES} bytes: an API key file holds one key`);
    }
    const key = buffer.subarray(0, length).toString('utf8').trim();
    if (key === '') throw new UsageError(`${named} is empty`, { hint: 'put the API key (service_pk_…) in it' });
    return key;
  } finally {
    closeSync(fd);
  }
}
