// rfs auth: API keys in config profiles.
import { Command } from '@commander-js/extra-typings';
import { defineNoun } from '../define.js';
import login from './login/index.js';
import logout from './logout/index.js';
import status from './status/index.js';
import switchProfile from './switch/index.js';

export default defineNoun(
  () => new Command('auth').description('manage API keys in config profiles'),
  [login, status, switchProfile, logout],
);
