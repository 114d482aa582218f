// rfs config unset: the declaration; the code is in run.ts.
import { Argument, Command } from '@commander-js/extra-typings';
import { SETTING_KEYS } from '../../../config/settings.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

// The keys complete in every shell; any text is taken, so that `apiKey` gets the advice of
// config/settings.ts rather than a bare list.
const settingKey = () => new Argument('<key>', 'the setting').choices(SETTING_KEYS).argParser((key) => key);

const declare = () =>
  new Command('unset')
    .description('remove a setting from the profile, so that its default applies again')
    .addArgument(settingKey())
    .addHelpText('after', examples(['rfs config unset rate', 'rfs config unset output --profile ci']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
