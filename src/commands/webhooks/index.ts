// rfs webhooks: webhook subscriptions, and a local receiver for them.
import { Command } from '@commander-js/extra-typings';
import { defineNoun } from '../define.js';
import create from './create/index.js';
import deleteWebhook from './delete/index.js';
import list from './list/index.js';
import listen from './listen/index.js';
import sign from './sign/index.js';
import trigger from './trigger/index.js';

export default defineNoun(
  () => new Command('webhooks').alias('webhook').description('manage webhook subscriptions'),
  [create, list, deleteWebhook, listen, sign, trigger],
);
