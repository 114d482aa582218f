// rfs config unset <key> (cli.md, config): the profile forgets the setting; its default applies.
import { findSetting, type Setting } from '../../../config/settings.js';
import { sanitize } from '../../../core/sanitize.js';
import type { Context } from '../../context.js';
import { chosenProfile } from '../effective.js';
import type { Input } from './index.js';

export function options({ args: [key] }: Input): Setting {
  return findSetting(key);
}

export async function run(ctx: Context, setting: Setting): Promise<number> {
  const { name, store } = chosenProfile(ctx);
  const was = store.settings(name)?.[setting.field];
  await store.changeSettings(name, { [setting.field]: undefined });
  ctx.ui.notice(
    was === undefined
      ? `${setting.key} was not set in profile "${sanitize(name)}"`
      : `${setting.key} is no longer set in profile "${sanitize(name)}": its default applies`,
  );
  return 0;
}
