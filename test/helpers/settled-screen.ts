/**
 * Waiting for a terminal's screen (tmux capture-pane) in the tests that run a program under tmux. A frame reaches tmux
 * in pieces (the program's write is larger than what tmux reads at once), so a screen taken while a frame is drawn
 * holds its top lines and the previous frame's bottom ones: a test that waited for one line of a frame and then read
 * another line of it could read the old frame there (replay.tty failed this way once in a full run: the fork's
 * `--root <path>`, wrapped to a second line, was not drawn yet). So a screen is taken only once settled: `pred`
 * holds, and a second look 50 ms later shows the same screen.
 */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function settledScreen(
  capture: () => string,
  pred: (screen: string) => boolean,
  what: string,
  timeoutMs = 30000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = capture();
    const shown = pred(last);
    if (shown) {
      await sleep(50);
      if (capture() === last) return last; // else still being drawn: looked at again
    }
    if (Date.now() > deadline) {
      const state = shown ? 'shown, but the screen never settled' : 'not shown';
      throw new Error(`timed out waiting for ${what} (${state}); the screen shows:\n${last}`);
    }
    await sleep(100);
  }
}
