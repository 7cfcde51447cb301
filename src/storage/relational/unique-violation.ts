// Each dialect tells which unique column a failed write hit, so repositories can raise
// DuplicateError without string-matching driver errors themselves.

/** Returns the column whose unique constraint the error reports, or null for any other error. */
export type UniqueViolationDetector = (error: unknown) => string | null;
