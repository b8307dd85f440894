/**
 * Runs the testing example of docs/strategies.md ("Testing a strategy"): its `describe` block is
 * the guide's code, imported here so that vitest collects it (doc-examples.test.ts checks that the
 * guide shows this file's region).
 */
import './examples/strategy-testing.js';
