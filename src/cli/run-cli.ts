/**
 * `runCli`: parses the command line and runs the chosen command. When the first argument names a
 * command, only that command's module is loaded and registered (start-up, issue 42: the other
 * fourteen command modules and what they import cost `validate` and `status` about a tenth of
 * their start); for anything else (`--help`, `help`, `--version`, a typo commander suggests a
 * name for) the full program of main.ts is built.
 */
import type { Command } from 'commander';
import { COMMAND_REGISTRARS, newProgram } from './program.js';

/** Parses `argv` and runs the chosen command. */
export async function runCli(argv: readonly string[]): Promise<void> {
  const name = argv[2];
  const registrar = name !== undefined && Object.hasOwn(COMMAND_REGISTRARS, name) ? COMMAND_REGISTRARS[name] : undefined;
  if (registrar) return runRegistered(await registrar(), argv);
  await (await import('./main.js')).buildProgram().parseAsync([...argv]);
}

/**
 * Parses `argv` on a program with only `register`'s commands: a bundled command's entry
 * (scripts/bundle-cli.mjs), where the module is part of the bundle rather than imported.
 */
export async function runRegistered(register: (program: Command) => void, argv: readonly string[]): Promise<void> {
  const program = newProgram();
  register(program);
  await program.parseAsync([...argv]);
}
