// rfs changed the mode of a config folder it did not create, even from
// commands that only read it (RFS_CONFIG_DIR=/tmp as root left /tmp at 0700). The built rfs, as
// a process, on a shared 1777 folder: the mode and the sticky bit stay, and rfs warns once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRfs } from '../helpers/child.js';

let tmp: string;
let shared: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rfs-shared-'));
  shared = path.join(tmp, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o1777);
});

afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a config folder rfs did not create', () => {
  it.each([[['auth', 'status']], [['auth', 'logout', '--profile', 'nobody']], [['config', 'list']]])(
    'rfs %j keeps a 1777 folder at 1777, sticky bit included, and warns about it',
    async (args) => {
      const run = await runRfs(args, { env: { RFS_CONFIG_DIR: shared, NO_COLOR: '1' } });
      expect(fs.statSync(shared).mode & 0o7777).toBe(0o1777);
      expect(run.stderr).toContain(`warning: the config folder ${shared} has mode 1777, not 0700; rfs did not create it`);
      expect(run.stderr.match(/the config folder/g)).toHaveLength(1);
    },
  );
});
