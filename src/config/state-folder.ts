// Where rfs keeps state that is not configuration (the sync journal, the remembered
// subscriptions): `$XDG_STATE_HOME/rfs` when it is an absolute path (the XDG Base Directory
// rule), else `<home>/.local/state/rfs`.
import { homedir } from 'node:os';
import path from 'node:path';

/** The state folder, or undefined when neither XDG_STATE_HOME nor `home` (default $HOME) is set. */
export function stateFolder(env: NodeJS.ProcessEnv, home: string | undefined = env.HOME): string | undefined {
  if (env.XDG_STATE_HOME?.startsWith('/')) return path.join(env.XDG_STATE_HOME, 'rfs');
  return home ? path.join(home, '.local', 'state', 'rfs') : undefined;
}

/**
 * The state folder of a file rfs must keep somewhere (the sync journal, the inspector's history):
 * the process's own home when HOME is unset. The remembered subscriptions, a convenience, are
 * kept nowhere then (`stateFolder`).
 */
export function stateFolderOrHome(env: NodeJS.ProcessEnv): string {
  return stateFolder(env, env.HOME || homedir()) ?? path.join('.local', 'state', 'rfs');
}
