// rfs config get <key> (cli.md, config): one setting's effective value. Plain text, as
// `gh config get` and `aws configure get` print it, so that `$(rfs config get output)` works in
// a script; the {key, value, source} object only when -o json or ndjson is asked for.
import { findSetting, type SettingFlags, type SettingKey } from '../../../config/settings.js';
import { safeJson } from '../../../output/safe-json.js';
import { writeOut } from '../../../output/list-writer.js';
import type { Context } from '../../context.js';
import { effectiveSettings, givenFlags, settingJson } from '../effective.js';
import type { Input } from './index.js';

interface GetOptions {
  key: SettingKey;
  flags: SettingFlags;
  /** -o json/ndjson or --json on this command line. */
  asJson: boolean;
}

export function options({ args: [key], command }: Input): GetOptions {
  const flags = givenFlags(command);
  const asJson = flags.json === true || (flags.output !== undefined && flags.output !== 'table');
  return { key: findSetting(key).key, flags, asJson };
}

export async function run(ctx: Context, o: GetOptions): Promise<number> {
  const [setting] = effectiveSettings(ctx, o.flags, [o.key]);
  if (setting === undefined) return 1;
  if (setting.problem !== undefined && setting.key === 'base-url') ctx.ui.warn(setting.problem);
  // --jq filters JSON (cli.md, Output): the setting is given to it as the JSON object.
  if (o.asJson || ctx.globals.jq !== undefined) await writeOut(ctx.io.stdout, `${safeJson(settingJson(setting))}\n`);
  else if (setting.value !== undefined) await writeOut(ctx.io.stdout, `${setting.value}\n`);
  return 0;
}
