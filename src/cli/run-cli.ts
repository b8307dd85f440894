/**
 * `runCli`: parses the command line and runs the chosen command. When the first argument names a
 * command, only that command's module is loaded and registered (start-up, issue 42: the other
 * fourteen command modules and what they import cost `validate` and `status` about a tenth of
 * their start); for anything else (`--help`, `help`, `--version`, a typo commander suggests a
 * name for) the full program of main.ts is built.
 */
import { COMMAND_REGISTRARS, newProgram } from './program.js';

/** Parses `argv` and runs the chosen command. */
export async function runCli(argv: readonly string[]): Promise<void> {
  const name = argv[2];
  const registrar = name !== undefined && Object.hasOwn(COMMAND_REGISTRARS, name) ? COMMAND_REGISTRARS[name] : undefined;
  let program;
  if (registrar) {
    program = newProgram();
    (await registrar())(program);
  } else {
    program = (await import('./main.js')).buildProgram();
  }
  await program.parseAsync([...argv]);
}
