/** What the storage layer logs: a lost PostgreSQL connection (never a password: see `lostConnectionFields`). */
export interface DatabaseLog {
  warn(fields: object, message: string): void;
}

/**
 * What a log line says of a lost connection: which pool, the server process,
 * host, port and database, and the error's code and message (pg's and Node's
 * say what happened, "terminating connection due to administrator command",
 * "read ECONNRESET", and quote no credentials). Never the URL or the config.
 */
export function lostConnectionFields(
  client: { processID?: number | null; host?: string; port?: number; database?: string | undefined },
  pool: string,
  error: unknown,
): object {
  const err = error as { code?: unknown; message?: unknown };
  return {
    pool,
    backendPid: client.processID ?? null,
    server: `${client.host ?? '?'}:${client.port ?? '?'}/${client.database ?? '?'}`,
    code: typeof err?.code === 'string' ? err.code : null,
    error: String(err?.message ?? error),
  };
}
