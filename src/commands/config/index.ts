// rfs config: per-profile settings and defaults (cli.md, config).
import { Command } from '@commander-js/extra-typings';
import { defineNoun } from '../define.js';
import get from './get/index.js';
import list from './list/index.js';
import set from './set/index.js';
import unset from './unset/index.js';

export default defineNoun(
  () => new Command('config').description('per-profile settings: base-url, output, rate, timeout, max-retries, provider'),
  [list, get, set, unset],
);
