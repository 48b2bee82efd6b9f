/** The database's refusal of a statement: its own message (drizzle wraps it as the cause of "Failed query"); throws if the statement was not refused. */
export async function refusal(statement: Promise<unknown>): Promise<string> {
  const error = await statement.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('the statement was not refused');
  return error.cause instanceof Error ? error.cause.message : error.message;
}
