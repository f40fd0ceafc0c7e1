/**
 * Text from outside (a webhook receiver's or a seller's answer, an error's
 * message) as a log row can keep it on either database: U+0000 becomes
 * U+FFFD. PostgreSQL's `text` cannot hold U+0000; a value holding it failed
 * the whole statement it was written in.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text;
}
