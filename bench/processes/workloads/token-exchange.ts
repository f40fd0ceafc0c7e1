// Load-generator workload: one authorization_code exchange per request (spec
// "Code exchange": JSON body), each with a fresh code, as integrators send them.
import type { RequestSpec, Workload } from '../../lib/load-plan.js';
import type { PreparedCodes } from '../fixtures/authorization-codes.js';

export function createWorkload(options: PreparedCodes): Workload {
  let next = 0;
  return {
    next(): RequestSpec {
      // Past the prepared codes the endpoint answers invalid_grant: counted as errors, never hidden.
      const code = options.codes[next++ % options.codes.length] as string;
      return {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'authorization_code',
          client_id: options.clientId,
          client_secret: options.clientSecret,
          redirect_uri: options.redirectUri,
          code,
        }),
      };
    },
  };
}
