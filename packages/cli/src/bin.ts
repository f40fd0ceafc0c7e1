#!/usr/bin/env node
import { createProgram } from './program.js';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  // No stack trace for the user; the message says what went wrong.
  process.stderr.write(`feira: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
