/**
 * `@feira/platform/cli`: what the `feira` command needs before it starts a server, or when it never does
 * (a client command such as `feira trigger`, `--help`, `--version`): the settings schema its flags are
 * made from, the trust roots of its outbound requests, and the record kind a topic announces. Nothing here
 * loads the server, its database drivers or its pages, so those commands start in a fraction of the time.
 * Everything is also exported by the package's main entry.
 */
export {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  type PlatformSettings,
  type ProcessSettings,
  SETTING_LEAVES,
  type SettingAnnotation,
  type SettingCommand,
  type SettingLeaf,
  type SettingReader,
} from './core/settings.js';
export { bearerToken } from './http/bearer-token.js';
export { parseTrustedProxies } from './http/trusted-proxies.js';
export { defaultTrustedCertificates } from './outbound/outbound-agent.js';
export type { RecordTable } from './records/record-kind.js';
export { RECORD_KINDS, recordKindOfTopic } from './records/record-kinds.js';
export { DEFAULT_SKUS, DEFAULT_ZIPCODE } from './shipping/quote-check-defaults.js';
export { type DialectName, dialectOf } from './storage/database-url.js';
