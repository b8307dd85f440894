#!/usr/bin/env node
// The `chainpilot` command. Runs the TypeScript sources through tsx (also used to load user
// strategies written in TypeScript), so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const main = fileURLToPath(new URL('../src/cli/entry.ts', import.meta.url));
await import(main);
