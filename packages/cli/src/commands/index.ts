import type { Command } from 'commander';
import { register as backup } from './backup.js';
import { register as bench } from './bench.js';
import { register as clock } from './clock.js';
import { register as dispatch } from './dispatch.js';
import { register as events } from './events.js';
import { register as freight } from './freight.js';
import { register as keys } from './keys.js';
import { register as listen } from './listen.js';
import { register as login } from './login.js';
import { register as logs } from './logs.js';
import { register as quoteCheck } from './quote-check.js';
import { register as seed } from './seed.js';
import { register as start } from './start.js';
import { register as trigger } from './trigger.js';
import { register as trust } from './trust.js';

/**
 * Every `feira` subcommand lives in its own file under commands/ and exports a
 * `register(program)` function; add it to this list.
 */
export const commands: Array<(program: Command) => void> = [
  backup,
  bench,
  clock,
  dispatch,
  events,
  freight,
  keys,
  listen,
  login,
  logs,
  quoteCheck,
  seed,
  start,
  trigger,
  trust,
];
