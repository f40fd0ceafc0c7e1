import { OAuthError } from './oauth-error.js';

/** Longest accepted parameter value: refresh tokens are a few hundred bytes; nothing legitimate comes near. */
const MAX_VALUE_LENGTH = 8192;

/**
 * The parameters of a token request, from a form or JSON body (spec-notes I2).
 * RFC 6749 §3.2: a parameter must not be repeated; empty values count as absent.
 * Anything that is not a flat object of strings is `invalid_request`, never a 500.
 */
/**
 * What the token, revocation and introspection endpoints read: the form RFC 6749
 * §4.1.3, RFC 7009 §2.1 and RFC 7662 §2.1 prescribe, and JSON (spec-notes I2).
 * The OpenAPI document offers both (`consumes`); JSON first, the media type a
 * generated Postman request sends.
 */
export const OAUTH_BODY_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

export class TokenRequestParams {
  readonly #values: Map<string, string>;

  private constructor(values: Map<string, string>) {
    this.#values = values;
  }

  static from(body: unknown): TokenRequestParams {
    if (body === undefined || body === null) {
      throw new OAuthError('invalid_request', 'The request has no body: send the parameters as a form or JSON');
    }
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new OAuthError('invalid_request', 'The body must be a form or a JSON object');
    }
    const values = new Map<string, string>();
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      if (Array.isArray(value)) throw new OAuthError('invalid_request', `Parameter ${name.slice(0, 64)} is repeated`);
      if (typeof value !== 'string') throw new OAuthError('invalid_request', `Parameter ${name.slice(0, 64)} must be a string`);
      if (value.length > MAX_VALUE_LENGTH) throw new OAuthError('invalid_request', `Parameter ${name.slice(0, 64)} is too long`);
      if (value !== '') values.set(name, value);
    }
    return new TokenRequestParams(values);
  }

  get(name: string): string | undefined {
    return this.#values.get(name);
  }

  require(name: string): string {
    const value = this.#values.get(name);
    if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
    return value;
  }
}
