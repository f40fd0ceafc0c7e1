import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';

const CLI_DOC = new URL('../../../../docs/cli.md', import.meta.url);

/** Every command line the docs/cli.md table names: `feira <command> [<subcommand>]`, the words before any option or argument. */
function documentedCommands(doc: string): Set<string> {
  const names = new Set<string>();
  for (const row of doc.split('\n').filter((line) => line.startsWith('| `feira '))) {
    for (const [, usage] of row.split(' | ')[0]?.matchAll(/`feira ([^`]+)`/g) ?? []) {
      const words = (usage as string).split(' ').filter((word) => /^[a-z][a-z-]*$/.test(word));
      if (words.length === 0) continue;
      names.add(words.slice(0, 2).join(' '));
      names.add(words[0] as string);
    }
  }
  return names;
}

describe('the feira command registry', () => {
  it('every registered command, and each of its subcommands, has its row in docs/cli.md', () => {
    const documented = documentedCommands(readFileSync(CLI_DOC, 'utf8'));
    const registered = createProgram().commands.flatMap((command) =>
      command.commands.length > 0 ? command.commands.map((sub) => `${command.name()} ${sub.name()}`) : [command.name()],
    );
    expect(registered.length).toBeGreaterThan(10);
    expect(registered.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('the docs name no command the CLI does not have', () => {
    const program = createProgram();
    const known = new Set(program.commands.map((command) => command.name()));
    const named = [...documentedCommands(readFileSync(CLI_DOC, 'utf8'))].filter((name) => !name.includes(' '));
    expect(named.filter((name) => !known.has(name))).toEqual([]);
  });
});
