import { createRequire } from 'node:module';
import { Command } from 'commander';
import { commands } from './commands/index.js';

/** The `feira` command with every subcommand registered (bin.ts parses process.argv with it). */
export function createProgram(): Command {
  const program = new Command('feira')
    .description('Feira: a marketplace seller platform sandbox, SDK companion and tools.')
    .version(cliVersion(), '-V, --version', "print feira's version")
    .showHelpAfterError();
  for (const register of commands) register(program);
  return program;
}

/** The version of this package (packages/cli/package.json), from src/ and dist/ alike. */
function cliVersion(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}
