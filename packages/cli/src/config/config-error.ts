/** A flag or FEIRA_* variable that cannot be used. The command prints the message and exits with code 2 (usage error). */
export class ConfigError extends Error {
  readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
