// Small TypeBox builders for the shapes our schemas repeat: enums that read well in the
// OpenAPI document and validate with one clear Ajv error, and the error bodies.

import { type TSchema, type TUnsafe, Type } from "typebox";

/** An integer limited to `values`, e.g. privacy 0|1|2 (form strings are coerced by Ajv). */
export function integerEnum<const T extends readonly number[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "integer", enum: [...values], ...options });
}

/** A string limited to `values`, e.g. sort asc|desc. */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

export const MessageError = Type.Object(
  { message: Type.String(), status: Type.Integer() },
  { description: "An error: a sentence and the HTTP status." },
);

export const ValidationErrorBody = Type.Object(
  {
    message: Type.Record(Type.String(), Type.Array(Type.String())),
    status: Type.Literal(422),
  },
  { description: "Every invalid field with the sentences that say why." },
);

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const COMMON_ERRORS = {
  401: MessageError,
  404: MessageError,
  429: MessageError,
} as const;

/** 403, for the routes only administrators may call. */
export const FORBIDDEN_ERROR = { 403: MessageError } as const;

/** The list envelope of the websites and users APIs (see pagination.ts listEnvelope). */
export function PagedList<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    links: Type.Object({
      first: Type.String(),
      last: Type.String(),
      prev: Type.Union([Type.String(), Type.Null()]),
      next: Type.Union([Type.String(), Type.Null()]),
    }),
    meta: Type.Object({
      current_page: Type.Integer(),
      from: Type.Union([Type.Integer(), Type.Null()]),
      last_page: Type.Integer(),
      path: Type.String(),
      per_page: Type.Integer(),
      to: Type.Union([Type.Integer(), Type.Null()]),
      total: Type.Integer(),
    }),
    status: Type.Literal(200),
  });
}

export const PER_PAGE_VALUES = [10, 25, 50, 100] as const;
/** Keeps (page - 1) * per_page a safe integer for every engine. */
export const MAX_PAGE = 1_000_000;

export const PerPageParam = Type.Optional(
  integerEnum(PER_PAGE_VALUES, { default: 10, description: "Items per page." }),
);
export const PageParam = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: "Page number; past the end is empty.",
  }),
);
