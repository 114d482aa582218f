// The config file's shape (cli.md, Connection and credentials), in zod: the one source of the
// check that config/profiles.ts runs, generated from it as plain functions
// (stored-config.generated.ts, scripts/checks.mjs) so that a command reading the file loads no
// schema library. Imported by the generator and the tests only.
import * as z from 'zod/mini';
import '../shared/zod-messages.js';

const nonEmpty = z.string().check(z.minLength(1));

// A profile without baseUrl (`rfs config unset base-url`) uses the default service root; one
// without apiKey holds only settings (`rfs config set` before or without `rfs auth login`).
const profile = z.looseObject({ baseUrl: z.optional(nonEmpty), apiKey: z.optional(nonEmpty) });

export const StoredConfig = z.looseObject({
  defaultProfile: z.optional(z.string()),
  profiles: z._default(z.record(z.string(), profile), {}),
});
export type StoredConfig = z.infer<typeof StoredConfig>;
