/**
 * Fastify's schema compilers, made lazy and shared across the listener apps of a process (decision 0086).
 *
 * Fastify compiles every route's request validators (Ajv) and response serializers (fast-json-stringify) while the
 * app starts. With some 400 routes, most of them sharing the same error-envelope schemas, that was about one second
 * of CPU per listener at every controller start, for routes most runs never call. Here a route's validator or
 * serializer is compiled the first time a request needs it, and a compiled function is kept per schema object, so
 * the routes (and the apps) sharing a schema compile it once. What is compiled, and how it validates or serializes,
 * is Fastify's own default (@fastify/ajv-compiler, @fastify/fast-json-stringify-compiler) with the app's options.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (data: unknown) => string;
interface RouteSchema {
  schema: object;
  method: string;
  url: string;
  httpPart?: string;
  httpStatus?: string;
  contentType?: string;
}
type CompilerFor<T> = (route: RouteSchema) => T;

// One pool for the process: @fastify/ajv-compiler keeps one Ajv per set of options, and Ajv keeps what it compiled
// per schema object, so every app with the same options shares the validators.
const validatorPool = AjvCompiler() as unknown as (externalSchemas: unknown, options: unknown) => CompilerFor<Validate>;
const serializerPool = SerializerSelector() as unknown as (externalSchemas: unknown, options: unknown) => CompilerFor<Serialize>;

/** A validator that compiles on its first call. Ajv's `errors` are read from the function after a failed call. */
function lazyValidator(compile: () => Validate): Validate {
  let inner: Validate | undefined;
  const validate: Validate = (data, context) => {
    inner ??= compile();
    const result = inner(data, context);
    validate.errors = inner.errors;
    return result;
  };
  // Fastify hands the request as Ajv's parent data only to a function that says it is Ajv's (one with schemaEnv).
  validate.schemaEnv = true;
  return validate;
}

/** Serializers compiled so far, per schema object, per set of serializer options. */
const serializers = new WeakMap<object, Map<string, Serialize>>();

function sharedSerializer(variant: string, route: RouteSchema, compile: () => Serialize): Serialize {
  let byVariant = serializers.get(route.schema);
  if (!byVariant) serializers.set(route.schema, (byVariant = new Map()));
  let serialize = byVariant.get(variant);
  if (!serialize) byVariant.set(variant, (serialize = compile()));
  return serialize;
}

/**
 * The `schemaController` option for Fastify: its default compilers, compiled lazily and shared. (Fastify's types
 * describe the compilers' routes loosely, as any schema: the object above is what it passes.)
 */
export const lazySchemaController = {
  compilersFactory: {
    buildValidator(externalSchemas: unknown, options: unknown): CompilerFor<Validate> {
      const compilerFor = validatorPool(externalSchemas, options);
      return (route) => lazyValidator(() => compilerFor(route));
    },
    buildSerializer(externalSchemas: unknown, options: unknown): CompilerFor<Serialize> {
      const compilerFor = serializerPool(externalSchemas, options);
      const variant = JSON.stringify([externalSchemas ?? null, options ?? null]);
      return (route) => {
        let serialize: Serialize | undefined;
        return (data) => (serialize ??= sharedSerializer(variant, route, () => compilerFor(route)))(data);
      };
    },
  },
} as unknown as NonNullable<FastifyServerOptions['schemaController']>;
