// Shared by the sync tests: the fixture command, reading the external file and the journal.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../../sandbox/helpers.js';

export const FIXTURE = fileURLToPath(new URL('./fixtures/external-system.sh', import.meta.url));
/** The integration's command, as a user would give it to --exec. */
export const COMMAND = `sh "${FIXTURE}"`;
/**
 * The variables that steer the fixture command, passed to it through rfs's allow-list of the
 * command's environment (docs/sync.md): RFS_EXEC_ENV, as a deployment would set it.
 */
export const FIXTURE_ENV = 'EXTERNAL_FILE FAIL_FOR IGNORE_ATTEMPT MARKER_DIR PRINT SLOW_MS SLOW_AFTER_MS';

/**
 * The environment of a sync test's rfs: a config folder and an external file of the test's own
 * folder, the sandbox's URL and admin key, and PATH for the command's shell.
 */
export function syncEnv(h: Pick<Harness, 'base' | 'keys'>, dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    RFS_CONFIG_DIR: join(dir, 'config'),
    RFS_API_KEY: h.keys.admin,
    RFS_BASE_URL: h.base,
    EXTERNAL_FILE: join(dir, 'external.jsonl'),
    PATH: process.env.PATH,
    RFS_EXEC_ENV: FIXTURE_ENV,
    ...extra,
  };
}

export interface ExternalRecord {
  recordingId: string;
  externalId: string;
  attempt: number;
}

export function externalRecords(file: string): ExternalRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ExternalRecord);
}

export function journalSteps(file: string): { step: string; id: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { step: string; id: string }];
      } catch {
        return [];
      }
    });
}

/** Every recording counted once: a map from id to how many times it appears. */
export function counts(ids: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const id of ids) map.set(id, (map.get(id) ?? 0) + 1);
  return map;
}
