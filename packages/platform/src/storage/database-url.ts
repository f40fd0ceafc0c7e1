/** The two databases Feira runs on. */
export type DialectName = 'sqlite' | 'postgres';

/** Which database a URL names, told from its scheme alone: nothing is opened or loaded. */
export function dialectOf(url: string): DialectName {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`unsupported database URL (expected sqlite:<path> or postgres://…): ${redactUrl(url)}`);
}

/** A database URL fit for a log line or an error: its password masked. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
