// rfs recordings: list and fetch recordings.
import { Command } from '@commander-js/extra-typings';
import { defineNoun } from '../define.js';
import get from './get/index.js';
import list from './list/index.js';

export default defineNoun(() => new Command('recordings').alias('recording').description('list and fetch recordings'), [list, get]);
