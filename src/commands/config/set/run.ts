// rfs config set <key> <value> (cli.md, config): checked by the rule of the matching flag
// (exit 2 otherwise), then written through the config file's lock (config/profiles.ts).
import { findSetting, type Setting } from '../../../config/settings.js';
import { sanitize } from '../../../core/sanitize.js';
import type { Context } from '../../context.js';
import { chosenProfile } from '../effective.js';
import type { Input } from './index.js';

interface SetOptions {
  setting: Setting;
  value: string | number;
}

export function options({ args: [key, value] }: Input): SetOptions {
  // The key is refused before its value is even looked at: it may be a secret typed into argv.
  const setting = findSetting(key);
  return { setting, value: setting.read(value, setting.key) };
}

export async function run(ctx: Context, o: SetOptions): Promise<number> {
  const { name, store } = chosenProfile(ctx);
  await store.changeSettings(name, { [o.setting.field]: o.value });
  ctx.ui.notice(`${o.setting.key} is ${sanitize(String(o.value))} in profile "${sanitize(name)}"`);
  return 0;
}
