// Actions a person starts with a click or a key: a double-click or Enter pressed twice
// must not start a second one while the first is still under way.

/** `act`, ignoring calls made while an earlier call has not finished. */
export function oneAtATime(act: () => Promise<void>): () => Promise<void> {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      await act();
    } finally {
      running = false;
    }
  };
}
