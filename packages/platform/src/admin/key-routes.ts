import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { refuse } from '../core/refusals.js';
import { rotateSigningKey, type SigningKeyView, signingKeyViews } from '../identity/index.js';
import { type SealedColumn, sealedStatus } from '../storage/secret-reseal.js';
import { ErrorResponse } from './admin-schemas.js';
import { ADMIN_ERRORS as errors, ADMIN_SECURITY as security } from './admin-views.js';

const closed = { additionalProperties: false } as const;
const dateTime = (description: string) => Type.String({ format: 'date-time', description });
const nullableDateTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const SigningKeyViewSchema = Type.Object(
  {
    kid: Type.String({ description: 'The key id, the `kid` of the JWKS entry and of every token it signs' }),
    state: Type.Union([Type.Literal('next'), Type.Literal('current'), Type.Literal('previous'), Type.Literal('retired')], {
      description:
        '`next`: published in the JWKS, not signing yet; `current`: signs; `previous`: published until the tokens it signed expire; `retired`: gone from the JWKS',
    }),
    published_at: dateTime('In the JWKS from then'),
    signs_from: dateTime('Signs new tokens from then'),
    signs_until: nullableDateTime('When a newer key took over signing (null while none did)'),
    retires_at: nullableDateTime(
      'When it leaves the JWKS: the tokens it signed have all expired (null while it signs or waits to)',
    ),
  },
  { ...closed, $id: 'SigningKey' },
);

const SigningKeyList = Type.Object(
  {
    data: Type.Array(Type.Ref('SigningKey'), { description: 'Every signing key, newest first' }),
    publish_delay_seconds: Type.Integer({ description: 'How long a new key is published before it signs' }),
    retire_after_seconds: Type.Integer({
      description: 'How long a key stays published after it stopped signing: the access and ID tokens’ lifetime plus 60 s',
    }),
  },
  closed,
);

const SecretKeyStatus = Type.Object(
  {
    kid: Type.String({
      description: 'Names the current server secret (FEIRA_SECRET_KEY) in what it seals; reveals nothing of it',
    }),
    previous_kids: Type.Array(Type.String(), {
      description: 'The secrets still accepted for reading (FEIRA_SECRET_KEY_PREVIOUS), as named in what they sealed',
    }),
    remaining: Type.Integer({
      description: 'Sealed values not yet sealed again under the current secret; at 0 the previous secrets may be dropped',
    }),
    columns: Type.Array(
      Type.Object(
        {
          table: Type.String(),
          column: Type.String(),
          sealed: Type.Integer({ description: 'Values present' }),
          remaining: Type.Integer({ description: 'Of them, sealed under another secret' }),
        },
        closed,
      ),
    ),
  },
  closed,
);

/**
 * Keys that rotate while the platform runs (docs/deploy.md "Rotating keys"): the signing keys, listed
 * with their states and rotated (D110, D111), and the server secret's re-seal status (D112). What
 * seals and what re-seals is the composition's to say: it passes the sealed columns of every capability.
 */
export async function keyRoutes(instance: FastifyInstance, options: { sealedColumns: readonly SealedColumn[] }): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(SigningKeyViewSchema);
  const { platform } = app;
  const timings = () => app.identity.keyRing.timings;

  app.get(
    '/admin/v1/signing-keys',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminListSigningKeys',
        summary: 'The signing keys of access and ID tokens with their states: next, current, previous, retired',
        security,
        response: { 200: SigningKeyList, ...errors },
      },
    },
    async () => ({
      data: await signingKeyViews(platform.database, platform.clock, timings()),
      publish_delay_seconds: Math.round(timings().publishDelayMs / 1000),
      retire_after_seconds: Math.round(timings().retireAfterMs / 1000),
    }),
  );

  app.post(
    '/admin/v1/signing-keys/rotate',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminRotateSigningKey',
        summary:
          'Publish a new signing key: in the JWKS at once, signing after the publish delay; the current key stays published until its tokens expire',
        description:
          'A 409 while a key published earlier still waits to sign: one rotation at a time, so every process has a key before it signs.',
        security,
        response: { 201: Type.Ref('SigningKey'), 409: ErrorResponse, ...errors },
      },
    },
    async (_request, reply) => {
      const rotation = await rotateSigningKey(platform.database, platform, timings());
      if (!rotation.created) {
        throw refuse('ADMIN_KEY_ROTATION_PENDING', {
          kid: rotation.kid,
          publishedAt: rotation.publishedAt,
          signsFrom: rotation.signsFrom,
        });
      }
      // The process that rotated publishes the key at once; the others within their refresh.
      await app.identity.keyRing.refresh();
      const views: SigningKeyView[] = await signingKeyViews(platform.database, platform.clock, timings());
      return reply.code(201).send(views.find((view) => view.kid === rotation.kid));
    },
  );

  app.get(
    '/admin/v1/secret-key',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminSecretKeyStatus',
        summary:
          'The server secret: which one seals, which are still read, and how many sealed values the background re-seal has left',
        security,
        response: { 200: SecretKeyStatus, ...errors },
      },
    },
    async () => {
      const columns = await sealedStatus(platform.database, platform.box, options.sealedColumns);
      return {
        kid: platform.box.kid,
        previous_kids: platform.box.previousKids,
        remaining: columns.reduce((sum, c) => sum + c.remaining, 0),
        columns,
      };
    },
  );
}
