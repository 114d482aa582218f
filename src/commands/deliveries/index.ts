// rfs deliveries: webhook deliveries, listed and replayed.
import { Command } from '@commander-js/extra-typings';
import { defineNoun } from '../define.js';
import list from './list/index.js';
import replay from './replay/index.js';
import summary from './summary/index.js';
import watch from './watch/index.js';

export default defineNoun(
  () => new Command('deliveries').alias('delivery').description('inspect and replay webhook deliveries'),
  [list, replay, summary, watch],
);
