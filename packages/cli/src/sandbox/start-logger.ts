import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from '../config/start-config.js';

/**
 * Where `feira start` writes its logs: pino's JSON lines (piped, or
 * `--log-format json`), or one readable line per entry on a terminal, in
 * colour only when stderr is a TTY and NO_COLOR is unset.
 */
export function logDestination(format: LogFormat, stream: NodeJS.WriteStream = process.stderr): DestinationStream | undefined {
  if (format === 'json') return undefined;
  return pretty({
    destination: 2,
    sync: true,
    colorize: stream.isTTY === true && !process.env.NO_COLOR,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}
