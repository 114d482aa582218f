// rfs config get: the declaration; the code is in run.ts.
import { Argument, Command } from '@commander-js/extra-typings';
import { SETTING_KEYS } from '../../../config/settings.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

// The keys complete in every shell; any text is taken, so that `apiKey` gets the advice of
// config/settings.ts rather than a bare list.
const settingKey = () => new Argument('<key>', 'the setting').choices(SETTING_KEYS).argParser((key) => key);

const declare = () =>
  new Command('get')
    .description("print one setting's value for this command line (plain text; -o json adds its source)")
    .addArgument(settingKey())
    .addHelpText('after', examples(['rfs config get output', 'rfs config get rate --profile ci -o json']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
