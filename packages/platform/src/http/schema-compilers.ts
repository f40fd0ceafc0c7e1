import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for
 * answers), shared by every app this process builds. Fastify makes a new pair
 * for each instance, so each app compiled every route's schemas again. A
 * process builds one app in production; a test file builds one per database,
 * per restart, per strict-mode variant, and compiling hundreds of routes was
 * most of what building one cost.
 *
 * A compiled validator or serializer is kept by the app's shared schemas and
 * options and the route schema's content; it is a pure function of those, so an
 * app gets exactly what it would have compiled itself. Header schemas are
 * compiled as given (Fastify lower-cases their keys only for its built-in
 * compiler); no route declares one.
 */
type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type RouteValidator = ReturnType<ReturnType<ValidatorFactory>>;
type SerializerFactory = ReturnType<typeof SerializerSelector>;
type RouteSerializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * A route's compiled function, kept by what it is compiled from: the app's shared schemas and options
 * (`context`) and the route schema's content, since plugins build many schemas afresh for each app.
 */
function cached<R>(cache: Map<string, R>, context: string, schema: unknown, compile: () => R, counted: () => void): R {
  const key = `${context}\n${JSON.stringify(schema)}`;
  let compiled = cache.get(key);
  if (compiled === undefined) {
    compiled = compile();
    counted();
    cache.set(key, compiled);
  }
  return compiled;
}

const defaultValidators = AjvCompiler();
const validators = new Map<string, RouteValidator>();
let compiledValidators = 0;

const buildValidator = ((externalSchemas, options) => {
  const compile = defaultValidators(externalSchemas, options);
  const context = JSON.stringify([externalSchemas, options]);
  return (route) =>
    cached(
      validators,
      context,
      route.schema,
      () => compile(route),
      () => {
        compiledValidators += 1;
      },
    );
}) as ValidatorFactory;

const defaultSerializers = SerializerSelector();
const serializers = new Map<string, RouteSerializer>();
let compiledSerializers = 0;

const buildSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = defaultSerializers(externalSchemas, serializerOptions);
  const context = JSON.stringify([externalSchemas, serializerOptions]);
  return (route) =>
    cached(
      serializers,
      context,
      route.schema,
      () => compile(route),
      () => {
        compiledSerializers += 1;
      },
    );
};

export const sharedSchemaController: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator, buildSerializer },
};

/** How many validators and answer serializers this process has compiled: a guard test counts them across two apps. */
export function schemaCompilations(): { validators: number; serializers: number } {
  return { validators: compiledValidators, serializers: compiledSerializers };
}
