/** A refusal or an unreachable sandbox, worded for the terminal (never with the token). */
export class AdminApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined = undefined,
  ) {
    super(message);
  }
}

/** The sandbox's admin API with its bearer token, for the CLI's commands. */
export class AdminApi {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  get(path: string): Promise<unknown> {
    return this.send('GET', path);
  }

  async send(method: string, path: string, body?: object): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch {
      throw new AdminApiError(`cannot reach the sandbox at ${this.baseUrl} (is \`npx feira start\` running?)`);
    }
    const text = await response.text();
    let parsed: { message?: string; details?: Array<{ field: string; message: string }> } | undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const details = parsed?.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
      throw new AdminApiError(
        `${method} ${path.split('?')[0]} answered ${response.status}: ${parsed?.message ?? ''}${details ? ` (${details})` : ''}`,
        response.status,
      );
    }
    return parsed;
  }
}
