/**
 * `chainpilot <command>` registers only that command (src/cli/run-cli.ts, issue 42's start-up): the
 * lean program must be the full one as far as that command goes. Every top-level command is named
 * in COMMAND_REGISTRARS, and each one registered alone prints the same help (its options,
 * arguments, defaults and descriptions) and has the same subcommands as in the full program.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { COMMAND_REGISTRARS, newProgram } from '../../src/cli/program.js';

const helpTree = (c: Command): string[] => [c.helpInformation(), ...c.commands.flatMap(helpTree)];

describe('the lean program of one command', () => {
  const full = buildProgram();

  it('names every command of the full program, and only those', () => {
    expect(Object.keys(COMMAND_REGISTRARS).sort()).toEqual(full.commands.map((c) => c.name()).sort());
  });

  it.each(Object.keys(COMMAND_REGISTRARS))('registers %s exactly as the full program does', async (name) => {
    const lean = newProgram();
    (await COMMAND_REGISTRARS[name]!())(lean);
    const mine = lean.commands.find((c) => c.name() === name);
    const theirs = full.commands.find((c) => c.name() === name)!;
    expect(mine).toBeDefined();
    expect(helpTree(mine!)).toEqual(helpTree(theirs));
    expect(lean.version()).toBe(full.version());
    expect(lean.description()).toBe(full.description());
  });
});
