/**
 * The operator commands' help says what they do: the kill switch persists in the deployment's store
 * for paper deployments too (test/e2e/daemon-paper-store.test.ts proves that it survives restarts).
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerControlCommands } from '../../src/cli/commands/control.js';

const helpOf = (verb: string): string => {
  const program = new Command();
  registerControlCommands(program);
  const c = program.commands.find((x) => x.name() === verb);
  if (!c) throw new Error(`no command ${verb}`);
  return c.helpInformation();
};

describe('operator command help', () => {
  it('kill and unkill say the switch persists for paper and live deployments alike', () => {
    for (const verb of ['kill', 'unkill']) {
      const help = helpOf(verb).replace(/\s+/g, ' ');
      expect(help).toContain('paper and live alike');
      expect(help).not.toContain('for live deployments');
    }
  });
});
