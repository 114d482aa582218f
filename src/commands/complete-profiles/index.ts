// rfs __complete-profiles: hidden; the completion scripts run it for `-p <TAB>` and
// `auth switch <TAB>` (cli.md, auth). Never listed in help or offered by completion.
import { Command } from '@commander-js/extra-typings';
import type { CommandDefinition } from '../define.js';
import { PROFILES_HOOK } from '../../completion/hook.js';

export default {
  mount(parent, dispatch) {
    const command = new Command(PROFILES_HOOK).description('profile names for shell completion');
    command.copyInheritedSettings(parent);
    command.action(async () => {
      await dispatch(PROFILES_HOOK, async (ctx) => (await import('./run.js')).run(ctx));
    });
    parent.addCommand(command, { hidden: true });
  },
} satisfies CommandDefinition;
