// rfs config list (cli.md, config): every setting's effective value and its source.
import { SETTING_KEYS } from '../../../config/settings.js';
import type { SettingFlags } from '../../../config/settings.js';
import { writeList } from '../../../output/list-writer.js';
import type { Context } from '../../context.js';
import { effectiveSettings, givenFlags, settingJson } from '../effective.js';
import type { Input } from './index.js';

export function options({ command }: Input): SettingFlags {
  return givenFlags(command);
}

export async function run(ctx: Context, flags: SettingFlags): Promise<number> {
  const settings = effectiveSettings(ctx, flags, SETTING_KEYS);
  // The other settings' problems were told when the run started (cli/globals.ts); the service
  // root is resolved only here and by the commands that connect.
  for (const s of settings) if (s.key === 'base-url' && s.problem !== undefined) ctx.ui.warn(s.problem);
  await writeList(
    ctx.io,
    ctx.globals.output,
    settings,
    {
      color: ctx.globals.color,
      columns: [
        { header: 'KEY', value: (s) => s.key },
        { header: 'VALUE', value: (s) => (s.value === undefined ? '' : String(s.value)), flex: true },
        { header: 'SOURCE', value: (s) => s.source },
      ],
    },
    { toJson: settingJson },
  );
  return 0;
}
