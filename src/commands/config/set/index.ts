// rfs config set: the declaration; the code is in run.ts.
import { Argument, Command } from '@commander-js/extra-typings';
import { SETTING_KEYS } from '../../../config/settings.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

// The keys complete in every shell; any text is taken, so that `apiKey` gets the advice of
// config/settings.ts rather than a bare list.
const settingKey = () => new Argument('<key>', 'the setting').choices(SETTING_KEYS).argParser((key) => key);

const declare = () =>
  new Command('set')
    .description('save a setting in the profile, checked as its flag would be (the API key is not a setting: rfs auth login)')
    .addArgument(settingKey())
    .argument('<value>', 'the value, as its flag takes it')
    .addHelpText('after', examples(['rfs config set output json', 'rfs config set rate 60 --profile ci', 'rfs config set provider crm']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
