// Transport-neutral application errors. Services throw these; each edge (HTTP API, CLI)
// maps the code to its own representation (see api/http-errors.ts).

export type ErrorCode =
  | "bad_request"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation"
  | "rate_limited"
  | "unavailable"
  | "internal";

/** Field name -> human sentences, as reported in a 422 body. */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export class ValidationError extends AppError {
  constructor(readonly fields: FieldErrors) {
    super("validation", "The given data was invalid.");
    this.name = "ValidationError";
  }

  static single(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class NotFoundError extends AppError {
  constructor() {
    super("not_found", "Resource not found.");
    this.name = "NotFoundError";
  }
}

/** The caller is known but may not do this (an API call only administrators may make). */
export class ForbiddenError extends AppError {
  constructor() {
    super("forbidden", "This action is unauthorized.");
    this.name = "ForbiddenError";
  }
}

/** A store is held by another process (the embedded event store has a single writer). */
export class StoreBusyError extends AppError {
  constructor(message: string) {
    super("unavailable", message);
    this.name = "StoreBusyError";
  }
}

/** The two stores: a client is told which one cannot answer, and nothing more. */
export type StoreName = "event" | "metadata";

/**
 * A store cannot do what was asked for now (a server that cannot be reached, a full disk, a
 * store being opened again): nothing of the call was stored. Answered as 503 with the
 * store's fixed sentence (clientMessage); the message names servers, files and the engine's
 * own error, so it is for the log and the command line, never for a client.
 */
export class StoreUnavailableError extends AppError {
  constructor(
    readonly store: StoreName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("unavailable", message);
    this.name = "StoreUnavailableError";
    if (options?.cause !== undefined) this.cause = options.cause;
  }

  /** What an HTTP client is told (the README's error table). */
  get clientMessage(): string {
    return `The ${this.store} store is unavailable for now; try again later.`;
  }
}

/** Collects field errors while validating several fields, so every invalid field is reported. */
export class FieldErrorCollector {
  readonly fields: FieldErrors = {};

  add(field: string, message: string): void {
    const list = this.fields[field];
    if (list) list.push(message);
    else this.fields[field] = [message];
  }

  get empty(): boolean {
    return Object.keys(this.fields).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.fields);
  }
}
