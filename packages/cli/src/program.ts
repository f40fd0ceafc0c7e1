import { Command } from 'commander';
import { commands } from './commands/index.js';

/** The `feira` command with every subcommand registered (bin.ts parses process.argv with it). */
export function createProgram(): Command {
  const program = new Command('feira')
    .description('Feira: a marketplace seller platform sandbox, SDK companion and tools.')
    .showHelpAfterError();
  for (const register of commands) register(program);
  return program;
}
