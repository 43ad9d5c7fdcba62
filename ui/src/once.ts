// Actions a person starts with a click or a key: a double-click or Enter pressed twice
// must not start a second one while the first is still under way.

/** `act`, ignoring calls made while an earlier call has not finished. */
export function oneAtATime<A extends unknown[]>(act: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  let running = false;
  return async (...args: A) => {
    if (running) return;
    running = true;
    try {
      await act(...args);
    } finally {
      running = false;
    }
  };
}
