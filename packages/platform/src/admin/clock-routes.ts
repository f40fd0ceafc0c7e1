import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DURATION_PATTERN, durationMs } from '../core/duration.js';
import { refuse, refuseField } from '../core/refusals.js';
import type { SandboxClock } from '../storage/sandbox-clock.js';
import { ErrorResponse } from './admin-schemas.js';
import { ADMIN_ERRORS as errors, ADMIN_SECURITY as security } from './admin-views.js';

/** The longest step of one advance: a year and a day (a soak test moves a year in steps). */
export const MAX_CLOCK_STEP_MS = 366 * 86_400_000;

const ClockView = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: "The platform's time, what every expiry and schedule reads" }),
    system_now: Type.String({ format: 'date-time', description: "The host's clock" }),
    offset_seconds: Type.Number({ description: 'How far the platform is ahead of the host (0 until moved)' }),
  },
  { additionalProperties: false },
);

const AdvanceBody = Type.Object(
  {
    duration: Type.String({
      pattern: DURATION_PATTERN,
      maxLength: 40,
      description: 'How far to move forward: whole days, hours, minutes, seconds (`2h`, `1d12h`, `90m`), at most 366 days',
    }),
  },
  { additionalProperties: false },
);

/**
 * The sandbox clock (storage/sandbox-clock.ts): read it, move it forward.
 * Sandbox mode only; in strict mode both routes answer 403 in the platform
 * error shape, saying why, so a script aimed at production learns it at once.
 */
export async function clockRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const sandboxClock = (): SandboxClock => {
    if (!platform.sandboxClock) throw refuse('ADMIN_CLOCK_SANDBOX_ONLY');
    return platform.sandboxClock;
  };
  const view = (clock: SandboxClock) => ({
    now: clock.now().toISOString(),
    system_now: new Date(clock.now().getTime() - clock.offsetMs).toISOString(),
    offset_seconds: clock.offsetMs / 1000,
  });
  const responses = { 200: ClockView, 403: ErrorResponse, ...errors };

  app.get(
    '/admin/v1/clock',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminGetClock',
        summary: "The sandbox's clock: the platform's time and how far it was moved ahead of the host's",
        security,
        response: responses,
      },
    },
    async () => {
      const clock = sandboxClock();
      // Another process may have moved it since this one last looked.
      await clock.refresh();
      return view(clock);
    },
  );

  app.post(
    '/admin/v1/clock/advance',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminAdvanceClock',
        summary:
          'Sandbox only: move the platform clock forward (tokens, codes and secret graces expire, retries fall due, retention sweeps as that much later)',
        security,
        body: AdvanceBody,
        response: responses,
      },
    },
    async (request) => {
      const clock = sandboxClock();
      const ms = durationMs(request.body.duration);
      if (ms === null || ms < 1000 || ms > MAX_CLOCK_STEP_MS) {
        throw refuseField('ADMIN_CLOCK_DURATION_INVALID', 'duration', 'body');
      }
      await clock.advance(ms);
      return view(clock);
    },
  );
}
