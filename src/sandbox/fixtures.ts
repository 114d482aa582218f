// --fixtures (sandbox.md, In an integrator's own tests): a start from a saved state (the format
// of --data and GET /_sandbox/state) or from a plain JSON list of recordings. Either is checked
// whole before the sandbox starts, and a bad one is refused with the path of the bad field.
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { PRIORITIES, RECORDING_STATUSES } from '../shared/schemas.js';
import { nestedDeeperThan } from '../shared/json-depth.js';
import { MAX_STATE_DEPTH, checkState, issuePath, type StoredState } from './persistence.js';
import { StateFileError, readStateFile } from './state-file.js';
import { WORKSPACES } from './types.js';

/** One recording of a plain list: everything but the status is optional and generated when left out. */
const FixtureRecording = z.strictObject({
  id: z.optional(z.string().check(z.regex(/^rec_[A-Za-z0-9]{1,64}$/, 'must look like rec_ followed by 1 to 64 letters or digits'))),
  workspace: z.optional(z.enum(WORKSPACES)),
  title: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
  status: z.optional(z.enum(RECORDING_STATUSES)),
  priority: z.optional(z.enum(PRIORITIES)),
});
const FixtureList = z.array(FixtureRecording).check(
  z.superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((rec, i) => {
      if (rec.id === undefined) return;
      if (seen.has(rec.id)) ctx.addIssue({ code: 'custom', message: `the id ${rec.id} is given twice`, path: [i, 'id'], input: rec.id });
      seen.add(rec.id);
    });
  }),
);
export type FixtureRecording = z.infer<typeof FixtureRecording>;

export type Fixtures = { kind: 'state'; state: StoredState } | { kind: 'recordings'; recordings: FixtureRecording[] };

/** A value that is not a state or a list of recordings; `path` names the first bad field. */
export class FixtureError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
  }
}

/** A list is a list of recordings; anything else must be a whole state. */
export function checkFixtures(value: unknown): Fixtures {
  // What could never be saved or answered is refused before it is used.
  if (nestedDeeperThan(value, MAX_STATE_DEPTH))
    throw new FixtureError('', `the fixtures are nested more than ${MAX_STATE_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    const parsed = FixtureList.safeParse(value);
    if (parsed.success) return { kind: 'recordings', recordings: parsed.data };
    const issue = parsed.error.issues[0];
    throw new FixtureError(issuePath(issue?.path ?? []), issue?.message ?? 'not a list of recordings');
  }
  const checked = checkState(value);
  if (!checked.ok) throw new FixtureError(checked.path, checked.message);
  return { kind: 'state', state: checked.state };
}

/** A fixtures file parsed, not yet checked (checkFixtures): bounded as every state file is read. */
export async function readFixtureFile(file: string): Promise<unknown> {
  const what = `the fixtures file ${file}`;
  let text: string;
  try {
    text = (await readStateFile(file, what)).toString('utf8');
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    throw new FixtureError('', error.message === 'not JSON' ? `${what} is not valid JSON` : error.message);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FixtureError('', `${what} is not valid JSON (${(error as Error).message})`);
  }
}
