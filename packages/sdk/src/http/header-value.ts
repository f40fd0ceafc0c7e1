/**
 * Request headers as the SDK accepts them: a Fetch `Headers`, Node's
 * `IncomingHttpHeaders` (lower-case keys), or any plain record.
 *
 * @example
 * ```ts
 * const headers: HeadersLike = { 'x-timestamp': '1768478400' };
 * ```
 */
export type HeadersLike = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads one header case-insensitively; repeated headers are joined with `,` (RFC 9110 §5.3). */
export function headerValue(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const lower = name.toLowerCase();
  let value = record[lower];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}
