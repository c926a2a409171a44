/**
 * The server's progress text as the notification shows it: all of it (the turn, the tool calls,
 * the running change so far, whatever the server sends), on the one line a notification has.
 */
export function progressText(message: string | undefined): string | undefined {
  if (message === undefined) {
    return undefined;
  }
  const parts = message
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "");
  return parts.length === 0 ? undefined : parts.join(" · ");
}
