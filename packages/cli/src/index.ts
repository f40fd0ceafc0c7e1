// @feira/cli: the `feira` command. Programmatic entry points for tools and tests.
export { runStart, type StartIo } from './commands/start.js';
export { ConfigError } from './config/config-error.js';
export { loadStartConfig, type SecretSource, type StartConfig } from './config/load-start-config.js';
export {
  LOG_LEVELS,
  type LogLevel,
  resolveStartSettings,
  type StartFlags,
  type StartSettings,
} from './config/start-config.js';
export { createProgram } from './program.js';
