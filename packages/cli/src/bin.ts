#!/usr/bin/env node
import { Command } from 'commander';
import { commands } from './commands/index.js';

const program = new Command('feira').description('Feira: a marketplace seller platform sandbox, SDK companion and tools.');
for (const register of commands) register(program);
await program.parseAsync(process.argv);
