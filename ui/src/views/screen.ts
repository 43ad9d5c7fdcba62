// What the app shell needs from a screen.

export interface Screen {
  el: HTMLElement;
  /** A key pressed outside any text field; true when the screen used it. */
  onKey?(ev: KeyboardEvent): boolean;
  /** Whether the app-wide keys (O to open a project, N for a new one) apply here. */
  appKeys?: boolean;
  /** Called once the screen is in the page. */
  shown?(): void;
  /** Called when another screen replaces this one. */
  leave?(): void;
}
